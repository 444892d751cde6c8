<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Compare</name>
    <message>
        <source>run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>runs %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>forgetting: change of %1 (%)</source>
        <translation>遗忘：%1 的变化（%）</translation>
    </message>
    <message>
        <source>learning: improvement of %1 (%)</source>
        <translation>学习：%1 的改善（%）</translation>
    </message>
    <message>
        <source>(not set)</source>
        <translation>（未设置）</translation>
    </message>
    <message>
        <source> vs </source>
        <translation> 对比 </translation>
    </message>
    <message>
        <source>the group has no runs</source>
        <translation>该组没有运行</translation>
    </message>
    <message>
        <source>(no plan)</source>
        <translation>（无方案）</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n run(s))</source>
        <translation>
            <numerusform>%1（%n 个运行）</numerusform>
        </translation>
    </message>
    <message>
        <source>forgetting at matched learning</source>
        <translation>相同学习程度下的遗忘</translation>
    </message>
    <message>
        <source>no finished run of the group has both %1 and %2 at an evaluation</source>
        <translation>该组没有已完成的运行在同一次评估中同时具有 %1 和 %2</translation>
    </message>
    <message>
        <source>does not reach</source>
        <translation>未达到</translation>
    </message>
    <message>
        <source>(%1 of %2 seeds)</source>
        <translation>（%2 个种子中的 %1 个）</translation>
    </message>
    <message>
        <source>Forgetting (%1) where %2 reaches %3%4: per seed, the point of its runs (every rate and evaluation) with the least validation forgetting; mean ± std over the seeds that reach the level</source>
        <translation>遗忘（%1），在 %2 达到 %3%4 处：每个种子取其运行（所有学习率和评估）中验证遗忘最少的点；对达到该水平的种子求均值 ± 标准差</translation>
    </message>
    <message>
        <source> (auto)</source>
        <translation>（自动）</translation>
    </message>
    <message>
        <source>No finished run here has evaluations of both metrics.</source>
        <translation>这里没有已完成的运行同时具有两个指标的评估。</translation>
    </message>
    <message>
        <source>A chosen point has no test value: these figures are on the validation sets.</source>
        <translation>某个选中的点没有测试值：这些数字基于验证集。</translation>
    </message>
    <message>
        <source>seed %1: run %2, lr %3, step %4: %5</source>
        <translation>种子 %1：运行 %2，学习率 %3，步 %4：%5</translation>
    </message>
    <message>
        <source>seed %1: does not reach the level</source>
        <translation>种子 %1：未达到该水平</translation>
    </message>
    <message>
        <source>No forgetting at matched learning: %1</source>
        <translation>无相同学习程度下的遗忘：%1</translation>
    </message>
    <message>
        <source>No forgetting at matched learning: the run is not finished or has no evaluation of both metrics</source>
        <translation>无相同学习程度下的遗忘：该运行未完成，或没有同时包含两个指标的评估</translation>
    </message>
    <message>
        <source>Forgetting at matched learning</source>
        <translation>相同学习程度下的遗忘</translation>
    </message>
    <message>
        <source>Forgetting at matched learning (%1)</source>
        <translation>相同学习程度下的遗忘（%1）</translation>
    </message>
    <message>
        <source>test</source>
        <translation>测试</translation>
    </message>
    <message>
        <source>validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>Forgetting (%1, %2 sets) when learning (%3) reaches %4: per seed, the least validation forgetting of any run and evaluation that reaches it (interpolated between evaluations), then mean ± std over the seeds. “does not reach”: no run of it gets there. The level is set on the Trade-off tab (fronts).</source>
        <translation>遗忘（%1，%2 集），当学习（%3）达到 %4 时：每个种子取达到该值的所有运行和评估中最少的验证遗忘（在评估之间插值），再对种子求均值 ± 标准差。“未达到”：没有运行能达到。该水平在“权衡”选项卡（前沿）中设置。</translation>
    </message>
    <message>
        <source>Auto level: the best learning every seed of every plan reaches.</source>
        <translation>自动水平：每个方案的每个种子都能达到的最佳学习程度。</translation>
    </message>
    <message>
        <source>Learning (%1)</source>
        <translation>学习（%1）</translation>
    </message>
    <message>
        <source>Learning: the final value of %1 on the new domain (%2)</source>
        <translation>学习：新领域上 %1 的最终值（%2）</translation>
    </message>
    <message>
        <source>lower is better</source>
        <translation>越低越好</translation>
    </message>
    <message>
        <source>higher is better</source>
        <translation>越高越好</translation>
    </message>
</context>
<context>
    <name>FilePicker</name>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>Format</name>
    <message>
        <source>%1 G</source>
        <translation>%1 G</translation>
    </message>
    <message>
        <source>%1 M</source>
        <translation>%1 M</translation>
    </message>
    <message>
        <source>%1 k</source>
        <translation>%1 k</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>%1 KiB</source>
        <translation>%1 KiB</translation>
    </message>
    <message>
        <source>%1 B</source>
        <translation>%1 字节</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1%</translation>
    </message>
</context>
<context>
    <name>GrowPlanner</name>
    <message>
        <source>Parallel adapters</source>
        <translation>并行适配器</translation>
    </message>
    <message>
        <source>The neutral-residues block without a gate and without the local loss.</source>
        <translation>不带门控、也不带局部损失的中性残差块。</translation>
    </message>
    <message>
        <source>ELU (implicit)</source>
        <translation>ELU（隐式）</translation>
    </message>
    <message>
        <source>Sigmoid (explicit)</source>
        <translation>Sigmoid（显式）</translation>
    </message>
    <message>
        <source>Gate</source>
        <translation>门控</translation>
    </message>
    <message>
        <source>ELU: the implicit selector “that we refer to as neutral residues”. Sigmoid: an explicit selector “trained as a local binary classifier” of the domain.</source>
        <translation>ELU：隐式选择器，“我们称之为中性残差”。Sigmoid：显式选择器，“作为局部二分类器训练”，用于判别领域。</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Layers that get an adapter beside their MLP: &quot;all&quot;, a list or a policy.</source>
        <translation>在其 MLP 旁添加适配器的层：&quot;all&quot;、列表或策略。</translation>
    </message>
    <message>
        <source>Budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <source>Extra parameters as a fraction of the base model (“with only 20% extra learnable weights”).</source>
        <translation>额外参数占基础模型的比例（“仅增加 20% 的可学习权重”）。</translation>
    </message>
    <message>
        <source>Extra parameters as a fraction of the base model.</source>
        <translation>额外参数占基础模型的比例。</translation>
    </message>
    <message>
        <source>Inner size</source>
        <translation>内部维度</translation>
    </message>
    <message>
        <source>Adapter inner size; 0 derives it from the budget.</source>
        <translation>适配器内部维度；0 表示根据预算推算。</translation>
    </message>
    <message>
        <source>Local loss α</source>
        <translation>局部损失 α</translation>
    </message>
    <message>
        <source>Coefficient of the ℓ1 local loss on original-domain batches (“best optimized when selected α = 100”); 0 switches it off.</source>
        <translation>原始领域批次上 ℓ1 局部损失的系数（“选取 α = 100 时优化效果最佳”）；0 表示关闭。</translation>
    </message>
    <message>
        <source>Heads H</source>
        <translation>头数 H</translation>
    </message>
    <message>
        <source>Slices of the hidden state, each with “its own router and its own private expert bank”; “OP improves with M and is best at M = 16”. Must divide the hidden size.</source>
        <translation>隐藏状态的切片，每个切片有“自己的路由器和专属专家组”；“OP 随 M 增大而提升，在 M = 16 时最佳”。必须能整除隐藏维度。</translation>
    </message>
    <message>
        <source>Experts K</source>
        <translation>专家数 K</translation>
    </message>
    <message>
        <source>Experts per head.</source>
        <translation>每个头的专家数。</translation>
    </message>
    <message>
        <source>Experts per bank.</source>
        <translation>每组专家数。</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Experts per token and head.</source>
        <translation>每个词元、每个头使用的专家数。</translation>
    </message>
    <message>
        <source>Experts per token.</source>
        <translation>每个词元使用的专家数。</translation>
    </message>
    <message>
        <source>Rank r</source>
        <translation>秩 r</translation>
    </message>
    <message>
        <source>Alpha</source>
        <translation>Alpha</translation>
    </message>
    <message>
        <source>Scale alpha / r; 0 = scale 1.</source>
        <translation>缩放 alpha / r；0 表示缩放为 1。</translation>
    </message>
    <message>
        <source>LoRA-style scale alpha / r; 0 = scale 1.</source>
        <translation>LoRA 式缩放 alpha / r；0 表示缩放为 1。</translation>
    </message>
    <message>
        <source>Balance loss</source>
        <translation>均衡损失</translation>
    </message>
    <message>
        <source>Load-balancing loss coefficient.</source>
        <translation>负载均衡损失系数。</translation>
    </message>
    <message>
        <source>Coefficient of the load-balancing loss (0 = off).</source>
        <translation>负载均衡损失的系数（0 = 关闭）。</translation>
    </message>
    <message>
        <source>Depth expansion (LLaMA-Pro, ADEPT)</source>
        <translation>深度扩展（LLaMA-Pro、ADEPT）</translation>
    </message>
    <message>
        <source>LLaMA-Pro (uniform)</source>
        <translation>LLaMA-Pro（均匀）</translation>
    </message>
    <message>
        <source>ADEPT</source>
        <translation>ADEPT</translation>
    </message>
    <message>
        <source>Style</source>
        <translation>方式</translation>
    </message>
    <message>
        <source>Blocks P</source>
        <translation>块数 P</translation>
    </message>
    <message>
        <source>Number of blocks LLaMA-Pro inserts.</source>
        <translation>LLaMA-Pro 插入的块数。</translation>
    </message>
    <message>
        <source>EWC</source>
        <translation>EWC</translation>
    </message>
    <message>
        <source>Full fine-tuning plus λ/2 · Σ F_i (θ_i − θ*_i)² with the diagonal Fisher of the base model on the original domain.</source>
        <translation>全参数微调，外加 λ/2 · Σ F_i (θ_i − θ*_i)²，其中使用基础模型在原始领域上的对角 Fisher 信息。</translation>
    </message>
    <message>
        <source>EWC changes no weights at initialisation (its penalty needs the Fisher of a probe): nothing to check.</source>
        <translation>EWC 在初始化时不改变任何权重（其惩罚项需要探测得到的 Fisher 信息）：无需检查。</translation>
    </message>
    <message>
        <source>λ</source>
        <translation>λ</translation>
    </message>
    <message>
        <source>Strength of the penalty λ/2 · Σ F_i (θ_i − θ*_i)².</source>
        <translation>惩罚项 λ/2 · Σ F_i (θ_i − θ*_i)² 的强度。</translation>
    </message>
    <message>
        <source>Freeze bottom layers</source>
        <translation>冻结底部层</translation>
    </message>
    <message>
        <source>Trains all but the bottom k layers and the input embedding.</source>
        <translation>训练除底部 k 层和输入嵌入之外的全部参数。</translation>
    </message>
    <message>
        <source>Frozen bottom layers</source>
        <translation>冻结的底部层数</translation>
    </message>
    <message>
        <source>“Freeze trains all but the bottom k layers and the input embedding.”</source>
        <translation>“Freeze 训练除底部 k 层和输入嵌入之外的全部参数。”</translation>
    </message>
    <message>
        <source>Freeze the embedding</source>
        <translation>冻结嵌入层</translation>
    </message>
    <message>
        <source>Also freeze the token embedding (and with tied embeddings the LM head).</source>
        <translation>同时冻结词元嵌入（若嵌入与输出层共享权重，则也冻结语言模型输出头）。</translation>
    </message>
    <message>
        <source>Full fine-tuning</source>
        <translation>全参数微调</translation>
    </message>
    <message>
        <source>Every parameter trains. The baseline that forgets most.</source>
        <translation>训练全部参数。遗忘最严重的基线方法。</translation>
    </message>
    <message>
        <source>Grow (MLP width replication)</source>
        <translation>Grow（MLP 宽度复制）</translation>
    </message>
    <message>
        <source>“Grow, don&apos;t overwrite”: the up-projection is concatenated k times and each copy of the down-projection scaled by 1/k; function preserving for any k.</source>
        <translation>“Grow, don&apos;t overwrite”：上投影拼接 k 次，下投影的每个副本乘以 1/k；对任意 k 都保持函数不变。</translation>
    </message>
    <message>
        <source>G-Freeze</source>
        <translation>G-Freeze</translation>
    </message>
    <message>
        <source>G-Train</source>
        <translation>G-Train</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>G-Freeze “strictly trains only the newly added weights”; G-Train trains “the entire expanded up-projection matrix while keeping the entire down-projection matrix and all other original parameters frozen”.</source>
        <translation>G-Freeze“严格只训练新增的权重”；G-Train 训练“整个扩展后的上投影矩阵，同时冻结整个下投影矩阵和所有其他原始参数”。</translation>
    </message>
    <message>
        <source>Replication factor k</source>
        <translation>复制倍数 k</translation>
    </message>
    <message>
        <source>k copies of each MLP unit, the down copies scaled by 1/k; “using k = 2 consistently provided the best trade-off”.</source>
        <translation>每个 MLP 单元复制 k 份，下投影副本乘以 1/k；“k = 2 始终带来最佳权衡”。</translation>
    </message>
    <message>
        <source>Layers whose MLP grows: &quot;all&quot;, a list of indices or a selection policy.</source>
        <translation>MLP 被扩展的层：&quot;all&quot;、索引列表或选择策略。</translation>
    </message>
    <message>
        <source>LoRA</source>
        <translation>LoRA</translation>
    </message>
    <message>
        <source>Low-rank adapters W x + (alpha/r)·B A x on the target projections, W frozen, B = 0 at initialisation.</source>
        <translation>在目标投影上加入低秩适配器 W x + (alpha/r)·B A x，W 冻结，初始化时 B = 0。</translation>
    </message>
    <message>
        <source>Rank of A (r × in) and B (out × r); r · (in + out) trainable parameters per target and layer.</source>
        <translation>A (r × in) 与 B (out × r) 的秩；每个目标、每层有 r · (in + out) 个可训练参数。</translation>
    </message>
    <message>
        <source>Targets</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Projections that get adapters; gate exists only on gated MLPs (Llama, Qwen, Gemma).</source>
        <translation>添加适配器的投影；gate 仅存在于门控 MLP 中（Llama、Qwen、Gemma）。</translation>
    </message>
    <message>
        <source>Layers that get adapters: &quot;all&quot;, a list of indices or a selection policy.</source>
        <translation>添加适配器的层：&quot;all&quot;、索引列表或选择策略。</translation>
    </message>
    <message>
        <source>LoRAMoE</source>
        <translation>LoRAMoE</translation>
    </message>
    <message>
        <source>MH-MoE (multi-head routing)</source>
        <translation>MH-MoE（多头路由）</translation>
    </message>
    <message>
        <source>Neutral residues (gated adapters)</source>
        <translation>中性残差（门控适配器）</translation>
    </message>
    <message>
        <source>A gated adapter beside each selected MLP whose gate learns to output zero on original-domain data (ℓ1 local loss).</source>
        <translation>在每个选中的 MLP 旁并联一个门控适配器，其门控学会在原始领域数据上输出零（ℓ1 局部损失）。</translation>
    </message>
    <message>
        <source>SCALE (width upscaling)</source>
        <translation>SCALE（宽度扩展）</translation>
    </message>
    <message>
        <source>Every linear W becomes [[W, W12], [W21, W22]]; with W12 = 0 in every layer the original stream is the base model&apos;s bit for bit.</source>
        <translation>每个线性层 W 变为 [[W, W12], [W21, W22]]；若每层 W12 = 0，原始数据流与基础模型逐位一致。</translation>
    </message>
    <message>
        <source>Preserve</source>
        <translation>Preserve（保持）</translation>
    </message>
    <message>
        <source>Adapt</source>
        <translation>Adapt（适应）</translation>
    </message>
    <message>
        <source>Route</source>
        <translation>Route（路由）</translation>
    </message>
    <message>
        <source>Preserve: W12 “initialized to 0 and kept frozen”, original weights frozen. Adapt: W12 zero-initialised and trainable above L_fp. Route: per token, “if Z_preserve and Z_adapt agree (high cosine similarity), we route to SCALE-Preserve; otherwise we route to SCALE-Adapt”.</source>
        <translation>Preserve：W12“初始化为 0 并保持冻结”，原始权重冻结。Adapt：W12 零初始化，在 L_fp 以上可训练。Route：逐词元判断，“若 Z_preserve 与 Z_adapt 一致（余弦相似度高），则路由到 SCALE-Preserve；否则路由到 SCALE-Adapt”。</translation>
    </message>
    <message>
        <source>Added hidden width d_up</source>
        <translation>新增隐藏宽度 d_up</translation>
    </message>
    <message>
        <source>A multiple of head_dim · (heads / kv heads), so whole kv groups of heads are added.</source>
        <translation>head_dim · (头数 / kv 头数) 的整数倍，以便按完整的 kv 头组添加。</translation>
    </message>
    <message>
        <source>Added MLP width p_up</source>
        <translation>新增 MLP 宽度 p_up</translation>
    </message>
    <message>
        <source>Added MLP inner width.</source>
        <translation>新增的 MLP 内部宽度。</translation>
    </message>
    <message>
        <source>L_fp</source>
        <translation>L_fp</translation>
    </message>
    <message>
        <source>The lowest L_fp layers keep W12 zero and frozen; “forgetting increases exponentially with decreasing L_fp”.</source>
        <translation>最低的 L_fp 层保持 W12 为零且冻结；“遗忘随 L_fp 减小呈指数增长”。</translation>
    </message>
    <message>
        <source>Collaboration in attention only</source>
        <translation>仅在注意力中协作</translation>
    </message>
    <message>
        <source>Route threshold τ</source>
        <translation>路由阈值 τ</translation>
    </message>
    <message>
        <source>Threshold on cos(Z_p, Z_a); “we fix τ = 0.5 as a robust default”.</source>
        <translation>cos(Z_p, Z_a) 的阈值；“我们将 τ = 0.5 固定为稳健的默认值”。</translation>
    </message>
    <message>
        <source>(0, 0)</source>
        <translation>(0, 0)</translation>
    </message>
    <message>
        <source>(0, random)</source>
        <translation>(0, 随机)</translation>
    </message>
    <message>
        <source>(0, SVD)</source>
        <translation>(0, SVD)</translation>
    </message>
    <message>
        <source>(random, 0)</source>
        <translation>(随机, 0)</translation>
    </message>
    <message>
        <source>(random, random)</source>
        <translation>(随机, 随机)</translation>
    </message>
    <message>
        <source>(random, SVD)</source>
        <translation>(随机, SVD)</translation>
    </message>
    <message>
        <source>(SVD, 0)</source>
        <translation>(SVD, 0)</translation>
    </message>
    <message>
        <source>(SVD, random)</source>
        <translation>(SVD, 随机)</translation>
    </message>
    <message>
        <source>(SVD, SVD)</source>
        <translation>(SVD, SVD)</translation>
    </message>
    <message>
        <source>W21, W22 initialisation</source>
        <translation>W21、W22 初始化</translation>
    </message>
    <message>
        <source>Initialisation of the new rows: zero, random, or SVD (the top singular directions of W). Default (SVD, 0).</source>
        <translation>新增行的初始化方式：零、随机或 SVD（W 的前几个奇异方向）。默认 (SVD, 0)。</translation>
    </message>
    <message>
        <source>Unit-wise learning rates (stage 2)</source>
        <translation>按单元的学习率（第 2 阶段）</translation>
    </message>
    <message>
        <source>Update interval T_update</source>
        <translation>更新间隔 T_update</translation>
    </message>
    <message>
        <source>Taylor |θ·∂L/∂θ|</source>
        <translation>Taylor |θ·∂L/∂θ|</translation>
    </message>
    <message>
        <source>Fisher</source>
        <translation>Fisher</translation>
    </message>
    <message>
        <source>Unit importance</source>
        <translation>单元重要性</translation>
    </message>
    <message>
        <source>Renormalised over the selected (eq. 13)</source>
        <translation>在所选专家上重新归一化（式 13）</translation>
    </message>
    <message>
        <source>Softmax over all experts</source>
        <translation>对所有专家做 softmax</translation>
    </message>
    <message>
        <source>Router weights</source>
        <translation>路由权重</translation>
    </message>
    <message>
        <source>Renormalised: the paper&apos;s eq. 13, a softmax over the selected experts only; with top-1 the weight is exactly 1 and the router never trains (the run records a warning). Softmax over all: the selected experts keep their share of a softmax over all K (Switch-style), so a top-1 router learns.</source>
        <translation>重新归一化：论文的式 13，仅在所选专家上做 softmax；top-1 时权重恰为 1，路由器永远不会被训练（运行会记录一条警告）。对所有专家做 softmax：所选专家保留其在全部 K 个专家 softmax 中的份额（Switch 式），因此 top-1 路由器也能学习。</translation>
    </message>
    <message>
        <source>Match the activated parameters of</source>
        <translation>匹配以下计划的激活参数</translation>
    </message>
    <message>
        <source>A reference plan: the rank is chosen so that the parameters active per token equal the reference&apos;s on the model as closely as possible (instead of &apos;rank&apos;).</source>
        <translation>参考计划：选择秩，使每个 token 的激活参数在该模型上尽可能接近参考计划（代替 &apos;rank&apos;）。</translation>
    </message>
    <message>
        <source>Rank of each expert (d_in/H → r → d_out).</source>
        <translation>每个专家的秩（d_in/H → r → d_out）。</translation>
    </message>
    <message>
        <source>Rank of each expert (d_in → r → d_out).</source>
        <translation>每个专家的秩（d_in → r → d_out）。</translation>
    </message>
    <message>
        <source>Beside each MLP linear (paper, A.3.4)</source>
        <translation>每个 MLP 线性层旁（论文 A.3.4）</translation>
    </message>
    <message>
        <source>Beside the whole MLP</source>
        <translation>整个 MLP 旁</translation>
    </message>
    <message>
        <source>Placement</source>
        <translation>放置位置</translation>
    </message>
    <message>
        <source>Beside each MLP linear: a bank of experts in parallel to each of gate, up and down (GPT-2, GPT-NeoX: the two MLP linears), each expert mapping that linear&apos;s input to its output, as the paper attaches experts. Beside the whole MLP: one bank d → r → d reading the MLP&apos;s input.</source>
        <translation>每个 MLP 线性层旁：与 gate、up、down 各并联一组专家（GPT-2、GPT-NeoX：两个 MLP 线性层），每个专家把该线性层的输入映射到其输出，与论文的做法一致。整个 MLP 旁：一组 d → r → d 专家，读取 MLP 的输入。</translation>
    </message>
    <message>
        <source>Layers whose MLP gets expert banks: &quot;all&quot;, a list or a policy.</source>
        <translation>其 MLP 获得专家组的层：&quot;all&quot;、列表或策略。</translation>
    </message>
    <message>
        <source>Banks of K LoRA experts beside each linear of the selected MLPs (gate, up, down), each with a top-k router over whole tokens.</source>
        <translation>在所选 MLP 的每个线性层（gate、up、down）旁放置 K 个 LoRA 专家，每组带有对整个词元的 top-k 路由器。</translation>
    </message>
    <message>
        <source>The input of each MLP linear is split into H heads, each with its own router and expert bank; the heads&apos; outputs are summed.</source>
        <translation>每个 MLP 线性层的输入被分成 H 个头，每个头有自己的路由器和专家组；各头的输出相加。</translation>
    </message>
    <message>
        <source>All linears</source>
        <translation>所有线性层</translation>
    </message>
    <message>
        <source>Attention only</source>
        <translation>仅注意力</translation>
    </message>
    <message>
        <source>FFN only</source>
        <translation>仅 FFN</translation>
    </message>
    <message>
        <source>Collaborating modules</source>
        <translation>协作模块</translation>
    </message>
    <message>
        <source>Where W12 trains above L_fp: every linear, attention (q, k, v, o) only (“MHA as the preferred collaborative module”) or the FFN (gate, up, down) only, the module ablation of §3.3.</source>
        <translation>W12 在 L_fp 之上训练的位置：每个线性层、仅注意力（q、k、v、o）（“MHA 作为首选协作模块”）或仅 FFN（gate、up、down），即 §3.3 的模块消融。</translation>
    </message>
    <message>
        <source>Earlier name of collaboration = attention (kept so that earlier plans load).</source>
        <translation>collaboration = attention 的旧名称（保留以便旧计划可以加载）。</translation>
    </message>
    <message>
        <source>Copies of layers inserted right after them with zeroed output projections, so each starts as the identity; only new blocks train. In place: no copies, the chosen layers train.</source>
        <translation>在各层之后插入其副本，输出投影置零，使每个新块初始为恒等映射；只训练新块。原位：不复制，训练所选的层。</translation>
    </message>
    <message>
        <source>In place (ADEPT without stage 1)</source>
        <translation>原位（不含第 1 阶段的 ADEPT）</translation>
    </message>
    <message>
        <source>LLaMA-Pro inserts P blocks uniformly, after every L/P layers. ADEPT copies “the k least-important ones for general competence”. In place copies nothing: the chosen layers themselves train, with unit-wise rates (ADEPT without stage 1).</source>
        <translation>LLaMA-Pro 均匀插入 P 个块，每 L/P 层之后插入一个。ADEPT 复制“对通用能力最不重要的 k 层”。原位不复制任何层：所选的层本身以按单元的学习率训练（不含第 1 阶段的 ADEPT）。</translation>
    </message>
    <message>
        <source>ADEPT: the layers copied (a list or a selection policy; not &quot;all&quot;). In place: the layers that train.</source>
        <translation>ADEPT：被复制的层（列表或选择策略；不能是 &quot;all&quot;）。原位：参与训练的层。</translation>
    </message>
    <message>
        <source>ADEPT stage 2: every unit U of a new block (in place: of a chosen layer) trains with lr_U = 2·(1 − Î_U)·lr, Î_U its importance min-max normalised over those units. On by default for ADEPT (off: ADEPT without stage 2) and in place, off for LLaMA-Pro (on: LLaMA-Pro placement with stage 2).</source>
        <translation>ADEPT 第 2 阶段：新块（原位：所选层）的每个单元 U 以 lr_U = 2·(1 − Î_U)·lr 训练，Î_U 为其在这些单元上做最小-最大归一化后的重要性。ADEPT 与原位默认开启（关闭：不含第 2 阶段的 ADEPT），LLaMA-Pro 默认关闭（开启：LLaMA-Pro 的位置加第 2 阶段）。</translation>
    </message>
    <message>
        <source>Training steps between assignments of the unit rates (stage 2): the first after T_update steps, never at step 0 (the base rate until then).</source>
        <translation>两次分配单元学习率之间的训练步数（第 2 阶段）：第一次在 T_update 步之后，从不在第 0 步（此前使用基础学习率）。</translation>
    </message>
    <message>
        <source>Taylor |θ|·mean|∂L_b/∂θ| (ADEPT&apos;s code)</source>
        <translation>Taylor |θ|·mean|∂L_b/∂θ|（ADEPT 代码所用）</translation>
    </message>
    <message>
        <source>Taylor θ·∂L/∂θ (the paper&apos;s text)</source>
        <translation>Taylor θ·∂L/∂θ（论文正文所用）</translation>
    </message>
    <message>
        <source>The importance I_U of stage 2, measured on the general probe set. The paper&apos;s signed θ·∂L/∂θ cancels: q and k (v and o, up and down) come out identical.</source>
        <translation>第 2 阶段的重要性 I_U，在通用探测集上测量。论文中带符号的 θ·∂L/∂θ 会相互抵消：q 与 k（v 与 o、up 与 down）得到相同的值。</translation>
    </message>
    <message>
        <source>Over all units (ADEPT&apos;s code)</source>
        <translation>在所有单元上（ADEPT 代码所用）</translation>
    </message>
    <message>
        <source>Per kind (norms apart from matrices)</source>
        <translation>按类别（归一化层与矩阵分开）</translation>
    </message>
    <message>
        <source>Normalise importance</source>
        <translation>重要性归一化</translation>
    </message>
    <message>
        <source>Stage 2&apos;s min-max normalisation: over all the units, or norms and matrices apart (a norm&apos;s importance is 100× or more a matrix&apos;s).</source>
        <translation>第 2 阶段的最小-最大归一化：在所有单元上，或将归一化层与矩阵分开（归一化层的重要性是矩阵的 100 倍或更多）。</translation>
    </message>
    <message>
        <source>Extra parameters as a fraction of the base model, as neutral residues size their adapters: the rank whose parameters come nearest to it (instead of &apos;rank&apos;); 0 = the rank as given.</source>
        <translation>额外参数占基础模型的比例（与 Neutral Residues 确定适配器大小的方式相同）：选取参数量最接近该预算的秩（代替 &apos;rank&apos;）；0 = 使用给定的秩。</translation>
    </message>
    <message>
        <source>Scale numerator: the update B A x is scaled by alpha / r (absent or 0: 2 · rank).</source>
        <translation>缩放分子：更新 B A x 按 alpha / r 缩放（未给出或为 0：2 · 秩）。</translation>
    </message>
    <message>
        <source>Policy: k least important</source>
        <translation>策略：最不重要的 k 层</translation>
    </message>
    <message>
        <source>The k layers least important on the original domain (ADEPT §3.1), by the masking score; resolved from a probe when the run starts.</source>
        <translation>在原始领域上最不重要的 k 层（ADEPT §3.1），按掩蔽得分；在运行开始时由探测确定。</translation>
    </message>
    <message>
        <source>Policy: k most important</source>
        <translation>策略：最重要的 k 层</translation>
    </message>
    <message>
        <source>The k layers most important on the original domain, by the masking score; resolved from a probe when the run starts.</source>
        <translation>在原始领域上最重要的 k 层，按掩蔽得分；在运行开始时由探测确定。</translation>
    </message>
    <message>
        <source>Policy: calibrated (domain-critical)</source>
        <translation>策略：校准（领域关键层）</translation>
    </message>
    <message>
        <source>The k layers whose importance rank on the new domain most exceeds their rank on the original domain (ADEPT App. R), by the masking score.</source>
        <translation>在新领域上的重要性排名比在原始领域上的排名高出最多的 k 层（ADEPT 附录 R），按掩蔽得分。</translation>
    </message>
    <message>
        <source>Policy: top-k by update magnitude</source>
        <translation>策略：按更新幅度取前 k 层</translation>
    </message>
    <message>
        <source>The k layers whose weights move most in a preliminary fine-tuning run on the new domain (Grow §4.2).</source>
        <translation>在新领域上进行预微调运行时权重变化最大的 k 层（Grow §4.2）。</translation>
    </message>
    <message>
        <source>Policy: uniform positions (LLaMA-Pro)</source>
        <translation>策略：均匀位置（LLaMA-Pro）</translation>
    </message>
    <message>
        <source>P layers spread evenly, one after every L/P layers (LLaMA-Pro).</source>
        <translation>均匀分布的 P 层，每隔 L/P 层一个（LLaMA-Pro）。</translation>
    </message>
    <message>
        <source>Policy: every layer above l_fp (SCALE)</source>
        <translation>策略：l_fp 以上的每一层（SCALE）</translation>
    </message>
    <message>
        <source>Every layer above the lowest l_fp (SCALE&apos;s L_fp).</source>
        <translation>最低 l_fp 层以上的每一层（SCALE 的 L_fp）。</translation>
    </message>
    <message>
        <source>Manual list</source>
        <translation>手动列表</translation>
    </message>
    <message>
        <source>The layers given.</source>
        <translation>给定的层。</translation>
    </message>
</context>
<context>
    <name>PlanEstimate</name>
    <message>
        <source>The layer policy is resolved from importance probes when the run starts; the figures assume its layer count.</source>
        <translation>层选择策略在运行开始时根据重要性探测确定；这些数值按其层数估算。</translation>
    </message>
    <message>
        <source>Cannot tell which layers the plan selects.</source>
        <translation>无法确定该方案选择了哪些层。</translation>
    </message>
    <message>
        <source>SCALE counts follow the operator&apos;s block structure; the exact numbers come from “Check preservation”.</source>
        <translation>SCALE 的参数量按算子的分块结构估算；精确数值由“检查保持性”给出。</translation>
    </message>
</context>
<context>
    <name>Plot</name>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>GrowBench plot</source>
        <translation>GrowBench 图表</translation>
    </message>
    <message>
        <source>Unknown image format &apos;%1&apos;: use .png, .svg or .pdf.</source>
        <translation>未知图像格式“%1”：请使用 .png、.svg 或 .pdf。</translation>
    </message>
    <message>
        <source>Could not write %1.</source>
        <translation>无法写入 %1。</translation>
    </message>
</context>
<context>
    <name>RunStatus</name>
    <message>
        <source>Queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <source>Diverged</source>
        <translation>已发散</translation>
    </message>
    <message>
        <source>Stopped by its guard</source>
        <translation>被遗忘守卫停止</translation>
    </message>
</context>
<context>
    <name>Runs</name>
    <message>
        <source>uniform, %1 blocks</source>
        <translation>均匀，%1 个块</translation>
    </message>
    <message>
        <source>bottom %1 frozen</source>
        <translation>底部 %1 层冻结</translation>
    </message>
</context>
<context>
    <name>SpecSchema</name>
    <message>
        <source>Spec version</source>
        <translation>规格版本</translation>
    </message>
    <message>
        <source>spec format version</source>
        <translation>规格格式版本</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>prefix of the run names</source>
        <translation>运行名称的前缀</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>what the experiment is for (text kept with the spec)</source>
        <translation>实验的目的（与规格一同保存的文本）</translation>
    </message>
    <message>
        <source>Comment</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>a note kept with the spec</source>
        <translation>与规格一同保存的备注</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>base model (presets), data splits, probe sets; also the run seed unless `seeds` is given</source>
        <translation>基础模型（预设）、数据划分、探测集；未给出 `seeds` 时也用作运行种子</translation>
    </message>
    <message>
        <source>Run seed</source>
        <translation>运行种子</translation>
    </message>
    <message>
        <source>the run seed: data order and new parameters&apos; initial values (each expanded run&apos;s spec holds it; give `seeds` instead)</source>
        <translation>运行种子：决定数据顺序和新参数的初始值（每个展开后运行的规格都包含它；请改为给出 `seeds`）</translation>
    </message>
    <message>
        <source>Seeds</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>one run per seed: the run seed sets data order and new parameters&apos; initial values</source>
        <translation>每个种子一次运行：运行种子决定数据顺序和新参数的初始值</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>a grid (or random search) over `train.*` keys and plan parameters → values (see Seeds, sweeps and groups)</source>
        <translation>对 `train.*` 键和方案参数 → 取值的网格（或随机搜索）（参见“Seeds, sweeps and groups”）</translation>
    </message>
    <message>
        <source>Sweep mode</source>
        <translation>扫描模式</translation>
    </message>
    <message>
        <source>`random` with `samples: N` draws N points</source>
        <translation>`random` 配合 `samples: N` 时抽取 N 个点</translation>
    </message>
    <message>
        <source>Samples</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>random points drawn per plan</source>
        <translation>每个方案随机抽取的点数</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>`cpu`, `cuda` or `cuda:N`</source>
        <translation>`cpu`、`cuda` 或 `cuda:N`</translation>
    </message>
    <message>
        <source>Data type</source>
        <translation>数据类型</translation>
    </message>
    <message>
        <source>weights&apos; dtype</source>
        <translation>权重的 dtype</translation>
    </message>
    <message>
        <source>Frozen weights&apos; dtype</source>
        <translation>冻结权重的 dtype</translation>
    </message>
    <message>
        <source>the frozen weight matrices&apos; dtype while training (linear units, embeddings, a plain head) where it is narrower than `dtype`: `checkpoint` keeps the checkpoint&apos;s own (a bf16 checkpoint&apos;s frozen base stays bf16: half the memory), `float32` converts them like every other weight; trainable and new parameters, gradients and optimizer state keep `dtype`</source>
        <translation>训练时冻结权重矩阵（线性单元、嵌入、普通输出头）的 dtype，在其比 `dtype` 更窄时生效：`checkpoint` 保留检查点自身的 dtype（bf16 检查点的冻结基座保持 bf16：内存减半），`float32` 像其他权重一样转换它们；可训练参数和新参数、梯度以及优化器状态保持 `dtype`</translation>
    </message>
    <message>
        <source>Threads</source>
        <translation>线程数</translation>
    </message>
    <message>
        <source>LibTorch intra-op threads (1 is fastest with OpenBLAS on 2 cores)</source>
        <translation>LibTorch 算子内线程数（在 2 核上使用 OpenBLAS 时，1 最快）</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>a Hugging Face or GrowBench folder (a path string or {&quot;path&quot;: ...}), or a preset</source>
        <translation>Hugging Face 或 GrowBench 文件夹（路径字符串或 {&quot;path&quot;: ...}），或一个预设</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>the model folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>a built-in model trained from scratch</source>
        <translation>从头训练的内置模型</translation>
    </message>
    <message>
        <source>Config overrides</source>
        <translation>配置覆盖</translation>
    </message>
    <message>
        <source>config.json overrides of the preset&apos;s architecture</source>
        <translation>对预设架构的 config.json 覆盖项</translation>
    </message>
    <message>
        <source>Tokenizer</source>
        <translation>分词器</translation>
    </message>
    <message>
        <source>the byte-level BPE tokenizer trained for the preset</source>
        <translation>为预设训练的字节级 BPE 分词器</translation>
    </message>
    <message>
        <source>Tokenizer text</source>
        <translation>分词器文本</translation>
    </message>
    <message>
        <source>the tokenizer&apos;s text: one source or a list</source>
        <translation>分词器的训练文本：一个数据源或一个列表</translation>
    </message>
    <message>
        <source>Vocabulary size</source>
        <translation>词表大小</translation>
    </message>
    <message>
        <source>the vocabulary size</source>
        <translation>词表大小</translation>
    </message>
    <message>
        <source>Pretraining stages</source>
        <translation>预训练阶段</translation>
    </message>
    <message>
        <source>the preset&apos;s training stages, in order (at least one)</source>
        <translation>预设的训练阶段，按顺序（至少一个）</translation>
    </message>
    <message>
        <source>Stage name</source>
        <translation>阶段名称</translation>
    </message>
    <message>
        <source>the stage&apos;s name</source>
        <translation>阶段的名称</translation>
    </message>
    <message>
        <source>Training data</source>
        <translation>训练数据</translation>
    </message>
    <message>
        <source>the stage&apos;s training data</source>
        <translation>该阶段的训练数据</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>optimizer steps</source>
        <translation>优化器步数</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>peak learning rate (AdamW, cosine)</source>
        <translation>峰值学习率（AdamW，余弦）</translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <source>tokens per sequence</source>
        <translation>每个序列的词元数</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>rows per batch</source>
        <translation>每个批次的行数</translation>
    </message>
    <message>
        <source>Warm-up</source>
        <translation>预热</translation>
    </message>
    <message>
        <source>linear warm-up steps</source>
        <translation>线性预热步数</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>original-domain and new-domain data, evaluation tasks</source>
        <translation>原始领域与新领域的数据、评估任务</translation>
    </message>
    <message>
        <source>Original domain (forgetting)</source>
        <translation>原始领域（遗忘）</translation>
    </message>
    <message>
        <source>the original domain (forgetting)</source>
        <translation>原始领域（遗忘）</translation>
    </message>
    <message>
        <source>Evaluation</source>
        <translation>评估</translation>
    </message>
    <message>
        <source>forgetting: eval/orig/loss, ppl and drift/cosine</source>
        <translation>遗忘：eval/orig/loss、ppl 和 drift/cosine</translation>
    </message>
    <message>
        <source>Replay</source>
        <translation>回放</translation>
    </message>
    <message>
        <source>original-domain text mixed into training (train.replay)</source>
        <translation>混入训练的原始领域文本（train.replay）</translation>
    </message>
    <message>
        <source>Probe set</source>
        <translation>探测集</translation>
    </message>
    <message>
        <source>the general probe set for importance</source>
        <translation>用于衡量重要性的通用探测集</translation>
    </message>
    <message>
        <source>Held-out test</source>
        <translation>留出测试集</translation>
    </message>
    <message>
        <source>held-out test set, evaluated at step 0 and the end</source>
        <translation>留出测试集，在第 0 步和结束时评估</translation>
    </message>
    <message>
        <source>New domain (learning)</source>
        <translation>新领域（学习）</translation>
    </message>
    <message>
        <source>the new domain (learning)</source>
        <translation>新领域（学习）</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>the new-domain training data</source>
        <translation>新领域的训练数据</translation>
    </message>
    <message>
        <source>learning: eval/new/loss and ppl</source>
        <translation>学习：eval/new/loss 和 ppl</translation>
    </message>
    <message>
        <source>Evaluation tasks</source>
        <translation>评估任务</translation>
    </message>
    <message>
        <source>evaluation tasks, scored at every evaluation</source>
        <translation>评估任务，每次评估时计分</translation>
    </message>
    <message>
        <source>Task sequence</source>
        <translation>任务序列</translation>
    </message>
    <message>
        <source>a task sequence instead of `data.new.train` (see Task sequences)</source>
        <translation>代替 `data.new.train` 的任务序列（参见“Task sequences”）</translation>
    </message>
    <message>
        <source>the task&apos;s name</source>
        <translation>任务的名称</translation>
    </message>
    <message>
        <source>the task&apos;s training data</source>
        <translation>任务的训练数据</translation>
    </message>
    <message>
        <source>the task&apos;s evaluation (its name: the step&apos;s)</source>
        <translation>任务的评估（其名称取自序列中的这一步）</translation>
    </message>
    <message>
        <source>optimizer steps of this task (0: train.steps)</source>
        <translation>此任务的优化器步数（0：train.steps）</translation>
    </message>
    <message>
        <source>Plans</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>growth plans, one run each (or `plan`: one)</source>
        <translation>增长方案，每个方案一次运行（或用 `plan`：单个方案）</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>one growth plan (instead of `plans`)</source>
        <translation>单个增长方案（代替 `plans`）</translation>
    </message>
    <message>
        <source>Optimisation</source>
        <translation>优化</translation>
    </message>
    <message>
        <source>optimisation</source>
        <translation>优化</translation>
    </message>
    <message>
        <source>optimizer steps (per task in a sequence unless the task sets `steps`)</source>
        <translation>优化器步数（在任务序列中按每个任务计，除非该任务设置了 `steps`）</translation>
    </message>
    <message>
        <source>tokens per sequence (packed, no padding; QA items and biographies reordered every epoch)</source>
        <translation>每个序列的词元数（打包，无填充；问答条目和传记每个 epoch 重新排序）</translation>
    </message>
    <message>
        <source>rows per micro-batch</source>
        <translation>每个微批次的行数</translation>
    </message>
    <message>
        <source>Batch tokens</source>
        <translation>批词元数</translation>
    </message>
    <message>
        <source>instead of batch_size: tokens per micro-batch (a multiple of `seq_len`)</source>
        <translation>代替 batch_size：每个微批次的词元数（`seq_len` 的倍数）</translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation>梯度累积</translation>
    </message>
    <message>
        <source>micro-batches per step</source>
        <translation>每步的微批次数</translation>
    </message>
    <message>
        <source>peak learning rate</source>
        <translation>峰值学习率</translation>
    </message>
    <message>
        <source>Schedule</source>
        <translation>调度</translation>
    </message>
    <message>
        <source>learning-rate schedule (decay to `min_lr_ratio`·lr)</source>
        <translation>学习率调度（衰减到 `min_lr_ratio`·lr）</translation>
    </message>
    <message>
        <source>Final LR ratio</source>
        <translation>最终学习率比例</translation>
    </message>
    <message>
        <source>final learning rate as a fraction of `lr`</source>
        <translation>最终学习率占 `lr` 的比例</translation>
    </message>
    <message>
        <source>Weight decay</source>
        <translation>权重衰减</translation>
    </message>
    <message>
        <source>AdamW decoupled decay (not on vectors: biases, norms, gates)</source>
        <translation>AdamW 解耦权重衰减（不作用于向量：偏置、归一化层、门控）</translation>
    </message>
    <message>
        <source>Gradient clipping</source>
        <translation>梯度裁剪</translation>
    </message>
    <message>
        <source>global gradient-norm clipping (0: off)</source>
        <translation>全局梯度范数裁剪（0：关闭）</translation>
    </message>
    <message>
        <source>β₁</source>
        <translation>β₁</translation>
    </message>
    <message>
        <source>AdamW β1</source>
        <translation>AdamW β1</translation>
    </message>
    <message>
        <source>β₂</source>
        <translation>β₂</translation>
    </message>
    <message>
        <source>AdamW β2</source>
        <translation>AdamW β2</translation>
    </message>
    <message>
        <source>ε</source>
        <translation>ε</translation>
    </message>
    <message>
        <source>AdamW ε</source>
        <translation>AdamW ε</translation>
    </message>
    <message>
        <source>Replay fraction</source>
        <translation>回放比例</translation>
    </message>
    <message>
        <source>fraction p of batches drawn from `data.original.replay` (the default of every plan)</source>
        <translation>从 `data.original.replay` 抽取的批次比例 p（所有方案的默认值）</translation>
    </message>
    <message>
        <source>Replay mode</source>
        <translation>回放模式</translation>
    </message>
    <message>
        <source>how replay mixes (the default of every plan; a plan&apos;s own `&quot;replay_mode&quot;` overrides it): `batches`, whole original-domain batches with probability p; `rows`, every batch holds ⌊p·B⌋ or ⌈p·B⌉ original-domain rows, the fraction carried over from batch to batch so that the first k batches hold ⌊k·p·B + ½⌋ (long-run fraction exactly p; docs/plans.md, Common keys). A run parameter `train.replay_mode` only where it is `rows`</source>
        <translation>回放的混合方式（所有方案的默认值；方案自身的 `&quot;replay_mode&quot;` 会覆盖它）：`batches`，以概率 p 使用整批原始领域数据；`rows`，每个批次包含 ⌊p·B⌋ 或 ⌈p·B⌉ 行原始领域数据，小数部分逐批结转，使前 k 个批次共含 ⌊k·p·B + ½⌋ 行（长期比例恰为 p；docs/plans.md，Common keys）。仅当其为 `rows` 时才作为运行参数 `train.replay_mode`</translation>
    </message>
    <message>
        <source>Row shards</source>
        <translation>行分块</translation>
    </message>
    <message>
        <source>blocks of rows each micro-batch is split into (at most `batch_size`): each block&apos;s forward and backward pass runs apart, on the CPU on as many cores at once as OpenBLAS would use (one BLAS thread each), and their gradients are summed in block order; results equal 1 block&apos;s up to float32 rounding and do not depend on the number of cores. Memory: each block holds its share of the activations, and its gradient is a separate copy of the trainable tensors&apos; size until the blocks are summed. 2 on a 2-core machine trains about 1.2× faster than 1 (docs/performance.md)</source>
        <translation>每个微批次拆分成的行块数（至多 `batch_size`）：每个块的前向和反向传播分开运行，在 CPU 上同时使用与 OpenBLAS 相同数量的核心（每块一个 BLAS 线程），其梯度按块的顺序求和；结果与 1 个块时相同（仅差 float32 舍入），且与核心数无关。内存：每个块持有其份额的激活值，在各块求和之前，其梯度是一份与可训练张量同样大小的单独副本。在 2 核机器上，设为 2 时的训练速度约为设为 1 时的 1.2×（docs/performance.md）</translation>
    </message>
    <message>
        <source>Divergence factor</source>
        <translation>发散因子</translation>
    </message>
    <message>
        <source>the run ends `diverged` when its next-token loss stays above this × its first logged value for 3 consecutive steps (0: off); a non-finite loss or evaluation metric always does</source>
        <translation>若下一词元损失连续 3 步高于此值 × 其首次记录的值，运行以 `diverged` 结束（0：关闭）；损失或评估指标出现非有限值时总会如此结束</translation>
    </message>
    <message>
        <source>Cross-entropy chunk</source>
        <translation>交叉熵分块</translation>
    </message>
    <message>
        <source>chunked cross-entropy for large vocabularies: the loss is computed from the final hidden states N tokens at a time, each chunk&apos;s gradient formed from its logits at once (the backward pass only scales it), so no more than one chunk of the (tokens × vocabulary) logits and their gradient exists at once and the logits are computed once a step (core/train/chunked_ce.h). `&quot;auto&quot;` chunks only where one micro-batch&apos;s (one row block&apos;s) float32 logits would exceed 256 MiB, in chunks of at most 64 MiB of logits (Qwen3&apos;s 151 936-wide vocabulary at 4 × 256 tokens: 110 tokens a chunk); below that (the tiny presets, every quickstart and paper run) it is the plain path, bit for bit. `0` never chunks; a number of tokens always chunks (the loss then equals the plain one up to float32 rounding). Needs a plain or tied LM head: with SCALE Route&apos;s two-pass head `&quot;auto&quot;` stays plain and a number is refused</source>
        <translation>用于大词表的分块交叉熵：损失由最终隐藏状态每次 N 个词元地计算，每个块的梯度在算出其 logits 时立即形成（反向传播只对其缩放），因此（词元 × 词表）的 logits 及其梯度同一时刻最多只存在一个块，且每步只计算一次 logits（core/train/chunked_ce.h）。`&quot;auto&quot;` 仅在一个微批次（一个行块）的 float32 logits 会超过 256 MiB 时分块，每块至多 64 MiB 的 logits（Qwen3 的 151 936 宽词表在 4 × 256 个词元时：每块 110 个词元）；低于此值时（tiny 预设、所有快速入门和论文运行）走普通路径，逐位一致。`0` 从不分块；给定词元数则总是分块（此时损失与普通路径相同，仅差 float32 舍入）。需要普通的或与嵌入共享权重的语言模型输出头：对于 SCALE Route 的两遍输出头，`&quot;auto&quot;` 保持普通路径，给定数字则会被拒绝</translation>
    </message>
    <message>
        <source>Activation checkpointing</source>
        <translation>激活检查点</translation>
    </message>
    <message>
        <source>activation checkpointing per decoder layer: each layer runs without keeping its intermediate tensors, keeps only its input, and runs again in the backward pass (about one more forward pass of compute; memory: every layer&apos;s input plus one layer&apos;s activations instead of all of them). The loss and gradients are those of a run without it, bit for bit (the layers draw no random numbers). Plans whose layers add an auxiliary loss during the forward pass (neutral residues&apos; local losses, LoRAMoE&apos;s load balance) are refused with an error naming the term. The GUI&apos;s experiment editor shows this key and `ce_chunk` on its Training page</source>
        <translation>按解码器层进行激活检查点：每层运行时不保留中间张量，只保留其输入，并在反向传播时重新运行（计算量约多一次前向传播；内存：每层的输入加上一层的激活值，而非所有层的激活值）。损失和梯度与不使用它的运行逐位一致（各层不抽取随机数）。若方案的层在前向传播中添加辅助损失（neutral residues 的局部损失、LoRAMoE 的负载均衡），则会以指明该项的错误拒绝。GUI 的实验编辑器在其“训练”页上显示此键和 `ce_chunk`</translation>
    </message>
    <message>
        <source>evaluation</source>
        <translation>评估</translation>
    </message>
    <message>
        <source>Interval</source>
        <translation>间隔</translation>
    </message>
    <message>
        <source>steps between evaluations (step 0 and the last step always)</source>
        <translation>两次评估之间的步数（第 0 步和最后一步总会评估）</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元数</translation>
    </message>
    <message>
        <source>token budget of each LM evaluation set</source>
        <translation>每个语言模型评估集的词元预算</translation>
    </message>
    <message>
        <source>rows per evaluation batch</source>
        <translation>每个评估批次的行数</translation>
    </message>
    <message>
        <source>Representation drift</source>
        <translation>表示漂移</translation>
    </message>
    <message>
        <source>representation drift on `data.original.eval`</source>
        <translation>在 `data.original.eval` 上的表示漂移</translation>
    </message>
    <message>
        <source>Max items</source>
        <translation>最多条目数</translation>
    </message>
    <message>
        <source>items per MC/QA task</source>
        <translation>每个 MC/QA 任务的条目数</translation>
    </message>
    <message>
        <source>Exact match</source>
        <translation>精确匹配</translation>
    </message>
    <message>
        <source>greedy exact match for QA tasks</source>
        <translation>QA 任务的贪心解码精确匹配</translation>
    </message>
    <message>
        <source>Test sets</source>
        <translation>测试集</translation>
    </message>
    <message>
        <source>when the held-out test sets (`data.*.test`, tasks&apos; `test`) are evaluated: `&quot;ends&quot;` at step 0 and the end, `&quot;every&quot;` at every evaluation (needed by `compare --at` and the trade-off fronts, which choose a rate and a step on the validation sets and report the test value of that same run and step)</source>
        <translation>何时评估留出测试集（`data.*.test`、任务的 `test`）：`&quot;ends&quot;` 在第 0 步和结束时，`&quot;every&quot;` 在每次评估时（`compare --at` 和权衡前沿需要它：它们在验证集上选定学习率和步，并报告同一运行同一步的测试值）</translation>
    </message>
    <message>
        <source>Importance probes</source>
        <translation>重要性探测</translation>
    </message>
    <message>
        <source>how the importance probes run (layer policies, ADEPT&apos;s and EWC&apos;s Fisher); the same options as `growbench-cli probe`</source>
        <translation>重要性探测的运行方式（层选择策略、ADEPT 和 EWC 的 Fisher 信息）；选项与 `growbench-cli probe` 相同</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>the default probe method (a policy or adept.method names its own)</source>
        <translation>默认探测方法（策略或 adept.method 会指定自己的方法）</translation>
    </message>
    <message>
        <source>tokens of the probe set</source>
        <translation>探测集的词元数</translation>
    </message>
    <message>
        <source>rows per probe batch</source>
        <translation>每个探测批次的行数</translation>
    </message>
    <message>
        <source>tokens per probe sequence</source>
        <translation>每个探测序列的词元数</translation>
    </message>
    <message>
        <source>Masking mode</source>
        <translation>掩蔽模式</translation>
    </message>
    <message>
        <source>masking: reuse the prefix before the masked layer, or run it whole</source>
        <translation>掩蔽：复用被掩蔽层之前的前缀，或完整运行整个模型</translation>
    </message>
    <message>
        <source>Fisher mode</source>
        <translation>Fisher 模式</translation>
    </message>
    <message>
        <source>Fisher: squared gradients per sequence or per batch</source>
        <translation>Fisher：按序列或按批次计算梯度平方</translation>
    </message>
    <message>
        <source>Fine-tuning steps</source>
        <translation>微调步数</translation>
    </message>
    <message>
        <source>update-magnitude and effective-rank: training steps</source>
        <translation>update-magnitude 和 effective-rank：训练步数</translation>
    </message>
    <message>
        <source>Fine-tuning LR</source>
        <translation>微调学习率</translation>
    </message>
    <message>
        <source>update-magnitude and effective-rank: learning rate</source>
        <translation>update-magnitude 和 effective-rank：学习率</translation>
    </message>
    <message>
        <source>Snapshot every</source>
        <translation>快照间隔</translation>
    </message>
    <message>
        <source>effective-rank: steps between snapshots (0: steps / 5)</source>
        <translation>effective-rank：两次快照之间的步数（0：steps / 5）</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>参照</translation>
    </message>
    <message>
        <source>effective-rank: ΔW against the previous snapshot or the base weights</source>
        <translation>effective-rank：ΔW 相对于上一个快照或基础权重</translation>
    </message>
    <message>
        <source>the gradient probes (taylor, taylor-abs, taylor-code, fisher): activation checkpointing per decoder layer, as train.checkpointing (the same numbers, about one more forward pass, the activations of one layer at a time)</source>
        <translation>梯度探针（taylor、taylor-abs、taylor-code、fisher）：按解码器层进行激活检查点，同 train.checkpointing（数值相同，约多一次前向计算，每次只保留一层的激活）</translation>
    </message>
    <message>
        <source>ADEPT defaults</source>
        <translation>ADEPT 默认值</translation>
    </message>
    <message>
        <source>defaults for ADEPT plans&apos; stage 2 (earlier specs; the plan&apos;s keys win)</source>
        <translation>ADEPT 方案第 2 阶段的默认值（用于旧版规格；方案自身的键优先）</translation>
    </message>
    <message>
        <source>Unit-wise learning rates</source>
        <translation>按单元的学习率</translation>
    </message>
    <message>
        <source>unit-wise learning rates (the plans&apos; unit_lr)</source>
        <translation>按单元的学习率（方案的 unit_lr）</translation>
    </message>
    <message>
        <source>T_update</source>
        <translation>T_update</translation>
    </message>
    <message>
        <source>steps between unit-rate assignments</source>
        <translation>两次分配单元学习率之间的步数</translation>
    </message>
    <message>
        <source>Unit importance</source>
        <translation>单元重要性</translation>
    </message>
    <message>
        <source>unit importance (the plans&apos; unit_importance)</source>
        <translation>单元重要性（方案的 unit_importance）</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>checkpoints</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>a checkpoint every N steps (0: at the end and on cancel)</source>
        <translation>每 N 步保存一个检查点（0：仅在结束时和取消时）</translation>
    </message>
    <message>
        <source>Forgetting guard</source>
        <translation>遗忘守卫</translation>
    </message>
    <message>
        <source>a forgetting guard per run</source>
        <translation>每个运行一个遗忘守卫</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>the evaluation metric compared with its step-0 value</source>
        <translation>与其第 0 步的值进行比较的评估指标</translation>
    </message>
    <message>
        <source>Budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <source>the largest relative change in the bad direction</source>
        <translation>向不利方向的最大相对变化</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>stop the run, or roll back to the last evaluation within the budget and finish from there</source>
        <translation>停止运行，或回滚到预算内的最后一次评估并从那里继续完成</translation>
    </message>
    <message>
        <source>Variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>the growth variant (docs/plans.md has each variant&apos;s own keys)</source>
        <translation>增长变体（各变体自己的键见 docs/plans.md）</translation>
    </message>
    <message>
        <source>the plan&apos;s label in run names and tables</source>
        <translation>方案在运行名称和表格中的标签</translation>
    </message>
    <message>
        <source>Own replay fraction</source>
        <translation>自定义回放比例</translation>
    </message>
    <message>
        <source>Own replay mode</source>
        <translation>自定义回放模式</translation>
    </message>
    <message>
        <source>EWC penalty</source>
        <translation>EWC 惩罚项</translation>
    </message>
    <message>
        <source>EWC λ</source>
        <translation>EWC λ</translation>
    </message>
    <message>
        <source>the strength of the penalty</source>
        <translation>惩罚项的强度</translation>
    </message>
    <message>
        <source>EWC mode</source>
        <translation>EWC 模式</translation>
    </message>
    <message>
        <source>per-task keeps every task&apos;s Fisher; online one decayed Fisher</source>
        <translation>per-task 保留每个任务的 Fisher 信息；online 保留一个逐步衰减的 Fisher 信息</translation>
    </message>
    <message>
        <source>EWC γ</source>
        <translation>EWC γ</translation>
    </message>
    <message>
        <source>the decay of the online Fisher</source>
        <translation>在线 Fisher 信息的衰减系数</translation>
    </message>
    <message>
        <source>PEFT adapter</source>
        <translation>PEFT 适配器</translation>
    </message>
    <message>
        <source>a PEFT LoRA adapter folder: rank, alpha, targets and layers come from it</source>
        <translation>PEFT LoRA 适配器文件夹：秩、alpha、目标和层均取自其中</translation>
    </message>
    <message>
        <source>this plan&apos;s seeds (replace the top-level seeds)</source>
        <translation>此方案的种子（替代顶层的种子）</translation>
    </message>
    <message>
        <source>this plan&apos;s sweep: train.* keys and its parameters → values (replaces the top-level sweep)</source>
        <translation>此方案的扫描：train.* 键及其参数 → 取值（替代顶层的扫描）</translation>
    </message>
    <message>
        <source>grid, or random draws of `samples` points</source>
        <translation>网格，或随机抽取 `samples` 个点</translation>
    </message>
    <message>
        <source>random points drawn for this plan</source>
        <translation>为此方案随机抽取的点数</translation>
    </message>
    <message>
        <source>Train overrides</source>
        <translation>训练覆盖项</translation>
    </message>
    <message>
        <source>fixed train overrides for this plan (the train keys a sweep may set; a sweep point of the same key wins)</source>
        <translation>此方案固定的 train 覆盖项（即扫描可设置的 train 键；同一键的扫描点优先）</translation>
    </message>
    <message>
        <source>a note kept with the plan</source>
        <translation>与方案一同保存的备注</translation>
    </message>
    <message>
        <source>File or folder</source>
        <translation>文件或文件夹</translation>
    </message>
    <message>
        <source>a text file or folder (text corpus)</source>
        <translation>文本文件或文件夹（文本语料）</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>how the corpus is read</source>
        <translation>语料的读取方式</translation>
    </message>
    <message>
        <source>JSONL field</source>
        <translation>JSONL 字段</translation>
    </message>
    <message>
        <source>JSONL: the field holding the text</source>
        <translation>JSONL：包含文本的字段</translation>
    </message>
    <message>
        <source>Document unit</source>
        <translation>文档单位</translation>
    </message>
    <message>
        <source>text files: what one document is</source>
        <translation>文本文件：以什么作为一个文档</translation>
    </message>
    <message>
        <source>Recursive</source>
        <translation>递归</translation>
    </message>
    <message>
        <source>folders: descend into sub-folders</source>
        <translation>文件夹：进入子文件夹</translation>
    </message>
    <message>
        <source>Strip overstrike</source>
        <translation>去除叠印</translation>
    </message>
    <message>
        <source>fortunes: remove &quot;x\b&quot; overstrike pairs</source>
        <translation>fortunes：去除 &quot;x\b&quot; 叠印字符对</translation>
    </message>
    <message>
        <source>Minimum characters</source>
        <translation>最少字符数</translation>
    </message>
    <message>
        <source>drop documents with fewer non-blank bytes</source>
        <translation>丢弃非空白字节数少于此值的文档</translation>
    </message>
    <message>
        <source>Part</source>
        <translation>部分</translation>
    </message>
    <message>
        <source>a document-level split seeded by the spec&apos;s seed; validation and test are the two halves of the held-out part</source>
        <translation>以规格的种子进行的文档级划分；validation 和 test 是留出部分的两半</translation>
    </message>
    <message>
        <source>Held-out fraction</source>
        <translation>留出比例</translation>
    </message>
    <message>
        <source>the held-out fraction of the documents</source>
        <translation>留出文档所占的比例</translation>
    </message>
    <message>
        <source>QA file</source>
        <translation>问答文件</translation>
    </message>
    <message>
        <source>a QA JSONL file ({&quot;question&quot;, &quot;answer&quot;} lines)</source>
        <translation>问答 JSONL 文件（每行 {&quot;question&quot;, &quot;answer&quot;}）</translation>
    </message>
    <message>
        <source>Loss on the answer only</source>
        <translation>仅在答案上计算损失</translation>
    </message>
    <message>
        <source>QA: the loss on the answer only</source>
        <translation>问答：仅在答案上计算损失</translation>
    </message>
    <message>
        <source>Biography options</source>
        <translation>传记选项</translation>
    </message>
    <message>
        <source>the biography benchmark&apos;s options (SCALE §5.1, data/biography.h)</source>
        <translation>传记基准的选项（SCALE §5.1，data/biography.h）</translation>
    </message>
    <message>
        <source>Generator seed</source>
        <translation>生成器种子</translation>
    </message>
    <message>
        <source>the generator&apos;s seed</source>
        <translation>生成器的种子</translation>
    </message>
    <message>
        <source>People</source>
        <translation>人数</translation>
    </message>
    <message>
        <source>people generated</source>
        <translation>生成的人数</translation>
    </message>
    <message>
        <source>Biographies per person</source>
        <translation>每人传记数</translation>
    </message>
    <message>
        <source>biographies per person</source>
        <translation>每人的传记数</translation>
    </message>
    <message>
        <source>Pretrain fraction</source>
        <translation>预训练比例</translation>
    </message>
    <message>
        <source>people with biographies in pretraining</source>
        <translation>传记用于预训练的人员比例</translation>
    </message>
    <message>
        <source>Task 0 train fraction</source>
        <translation>任务 0 训练比例</translation>
    </message>
    <message>
        <source>of those, people whose QA trains task 0</source>
        <translation>其中，问答用于训练任务 0 的人员比例</translation>
    </message>
    <message>
        <source>Task 1 fraction</source>
        <translation>任务 1 比例</translation>
    </message>
    <message>
        <source>new people for task 1, a fraction of num_people</source>
        <translation>任务 1 的新增人员，占 num_people 的比例</translation>
    </message>
    <message>
        <source>the part of the benchmark</source>
        <translation>基准中的部分</translation>
    </message>
    <message>
        <source>Max documents</source>
        <translation>最多文档数</translation>
    </message>
    <message>
        <source>at most this many documents (-1: all)</source>
        <translation>文档数上限（-1：全部）</translation>
    </message>
    <message>
        <source>Max tokens</source>
        <translation>最多词元数</translation>
    </message>
    <message>
        <source>at most this many tokens (-1: all)</source>
        <translation>词元数上限（-1：全部）</translation>
    </message>
    <message>
        <source>Task name</source>
        <translation>任务名称</translation>
    </message>
    <message>
        <source>names its metrics eval/&lt;name&gt;/...; not orig, new, drift, op or bwt</source>
        <translation>其指标命名为 eval/&lt;name&gt;/...；不能是 orig、new、drift、op 或 bwt</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>lm: loss and perplexity; mc: multiple choice; qa: answer accuracy</source>
        <translation>lm：损失和困惑度；mc：多项选择；qa：答案准确率</translation>
    </message>
    <message>
        <source>language modelling (lm)</source>
        <translation>语言建模 (lm)</translation>
    </message>
    <message>
        <source>multiple choice (mc)</source>
        <translation>多项选择 (mc)</translation>
    </message>
    <message>
        <source>question answering (qa)</source>
        <translation>问答 (qa)</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>数据源</translation>
    </message>
    <message>
        <source>the task&apos;s data (lm: any text source; qa: a QA or biography source)</source>
        <translation>任务的数据（lm：任意文本数据源；qa：问答或传记数据源）</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>mc: a JSONL file of items; lm and qa: the source&apos;s path</source>
        <translation>mc：条目的 JSONL 文件；lm 和 qa：数据源的路径</translation>
    </message>
    <message>
        <source>Cloze items</source>
        <translation>完形填空条目</translation>
    </message>
    <message>
        <source>a multiple-choice task built at run time from a corpus (data/cloze.h)</source>
        <translation>运行时从语料构建的多项选择任务（data/cloze.h）</translation>
    </message>
    <message>
        <source>Corpus</source>
        <translation>语料</translation>
    </message>
    <message>
        <source>the corpus to cut passages from</source>
        <translation>从中截取段落的语料</translation>
    </message>
    <message>
        <source>Items</source>
        <translation>条目数</translation>
    </message>
    <message>
        <source>at most this many items</source>
        <translation>条目数上限</translation>
    </message>
    <message>
        <source>Choices</source>
        <translation>选项数</translation>
    </message>
    <message>
        <source>the true continuation and choices − 1 distractors</source>
        <translation>正确的续写加上 choices − 1 个干扰项</translation>
    </message>
    <message>
        <source>the items&apos; seed</source>
        <translation>条目的种子</translation>
    </message>
    <message>
        <source>Min context words</source>
        <translation>最少上下文词数</translation>
    </message>
    <message>
        <source>words of context, at least</source>
        <translation>上下文词数下限</translation>
    </message>
    <message>
        <source>Max context words</source>
        <translation>最多上下文词数</translation>
    </message>
    <message>
        <source>words of context, at most</source>
        <translation>上下文词数上限</translation>
    </message>
    <message>
        <source>Min continuation words</source>
        <translation>最少续写词数</translation>
    </message>
    <message>
        <source>words of each continuation, at least</source>
        <translation>每个续写的词数下限</translation>
    </message>
    <message>
        <source>Max continuation words</source>
        <translation>最多续写词数</translation>
    </message>
    <message>
        <source>words of each continuation, at most</source>
        <translation>每个续写的词数上限</translation>
    </message>
    <message>
        <source>Distractors</source>
        <translation>干扰项</translation>
    </message>
    <message>
        <source>distractors from other passages or the true continuation&apos;s words shuffled</source>
        <translation>干扰项取自其他段落，或由正确续写的词打乱顺序得到</translation>
    </message>
    <message>
        <source>items evaluated (-1: eval.max_items)</source>
        <translation>评估的条目数（-1：eval.max_items）</translation>
    </message>
    <message>
        <source>the held-out test version (the same kind), evaluated at step 0 and the end as test/&lt;name&gt;/...</source>
        <translation>留出测试版本（同一类型），在第 0 步和结束时评估，记为 test/&lt;name&gt;/...</translation>
    </message>
    <message>
        <source>Test source</source>
        <translation>测试数据源</translation>
    </message>
    <message>
        <source>as the task&apos;s source</source>
        <translation>同任务的数据源</translation>
    </message>
    <message>
        <source>Test file</source>
        <translation>测试文件</translation>
    </message>
    <message>
        <source>as the task&apos;s path</source>
        <translation>同任务的路径</translation>
    </message>
    <message>
        <source>Test max items</source>
        <translation>测试最多条目数</translation>
    </message>
    <message>
        <source>items evaluated</source>
        <translation>评估的条目数</translation>
    </message>
    <message>
        <source>fraction p of original-domain batches for this plan (overrides train.replay; 0 is valid: for neutral residues the local loss then never applies)</source>
        <translation>此方案中来自原始领域的批次比例 p（覆盖 train.replay；0 也有效：此时中性残差的局部损失永不生效）</translation>
    </message>
    <message>
        <source>how replay mixes for this plan (overrides train.replay_mode): batches, each batch original-domain with probability p; rows, round(p · batch size) original-domain rows in every batch (the fraction carried over), so neutral residues&apos; local loss applies at every step</source>
        <translation>此方案的回放混合方式（覆盖 train.replay_mode）：batches，每个批次以概率 p 来自原始领域；rows，每个批次中有 round(p · 批次大小) 行来自原始领域（小数部分顺延），因此中性残差的局部损失在每一步都生效</translation>
    </message>
    <message>
        <source>whole batches</source>
        <translation>整个批次</translation>
    </message>
    <message>
        <source>rows in every batch</source>
        <translation>每个批次中的行</translation>
    </message>
    <message>
        <source>an EWC penalty λ/2 · Σ F_i (θ_i − θ*_i)² on the plan&apos;s trainable weights; in a task sequence the Fisher is estimated again after each task (docs/plans.md, Common keys)</source>
        <translation>作用于方案可训练权重的 EWC 惩罚项 λ/2 · Σ F_i (θ_i − θ*_i)²；在任务序列中，每个任务结束后重新估计 Fisher 信息（docs/plans.md，“Common keys”）</translation>
    </message>
    <message>
        <source>per task</source>
        <translation>逐任务</translation>
    </message>
    <message>
        <source>online</source>
        <translation>在线</translation>
    </message>
</context>
<context>
    <name>gb::gui::AboutDialog</name>
    <message>
        <source>About GrowBench</source>
        <translation>关于 GrowBench</translation>
    </message>
    <message>
        <source>unknown (growbench-cli did not say)</source>
        <translation>未知（growbench-cli 未给出）</translation>
    </message>
    <message>
        <source>unknown: %1</source>
        <translation>未知：%1</translation>
    </message>
    <message>
        <source>asking growbench-cli…</source>
        <translation>正在询问 growbench-cli…</translation>
    </message>
    <message>
        <source>&lt;h3&gt;GrowBench %1&lt;/h3&gt;&lt;p&gt;A workbench for growing pretrained language models without catastrophic forgetting: importance probes, growth plans, runs, and the forgetting–learning trade-off.&lt;/p&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;Qt&lt;/td&gt;&lt;td&gt;%2 (built with %3)&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;QCustomPlot&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;LibTorch&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;growbench-cli&lt;/td&gt;&lt;td&gt;%6&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</source>
        <translation>&lt;h3&gt;GrowBench %1&lt;/h3&gt;&lt;p&gt;在不造成灾难性遗忘的前提下扩展预训练语言模型的工作台：重要性探测、增长方案、运行，以及遗忘与学习之间的权衡。&lt;/p&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;Qt&lt;/td&gt;&lt;td&gt;%2（构建于 %3）&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;QCustomPlot&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;LibTorch&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;growbench-cli&lt;/td&gt;&lt;td&gt;%6&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</translation>
    </message>
</context>
<context>
    <name>gb::gui::ArchitectureModel</name>
    <message>
        <source>%1, frozen</source>
        <translation>%1，已冻结</translation>
    </message>
    <message>
        <source>Embeddings, final norm, head</source>
        <translation>嵌入、最终归一化层、输出头</translation>
    </message>
    <message>
        <source>Layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>占比</translation>
    </message>
</context>
<context>
    <name>gb::gui::CliJob</name>
    <message>
        <source>A growbench-cli job is already running.</source>
        <translation>已有一个 growbench-cli 作业在运行。</translation>
    </message>
    <message>
        <source>growbench-cli was not found next to growbench or in PATH. Set GROWBENCH_CLI to its path.</source>
        <translation>在 growbench 所在目录和 PATH 中均未找到 growbench-cli。请将 GROWBENCH_CLI 设为其路径。</translation>
    </message>
    <message>
        <source>Could not start %1: %2</source>
        <translation>无法启动 %1：%2</translation>
    </message>
</context>
<context>
    <name>gb::gui::CompareView</name>
    <message numerus="yes">
        <source>Deleted %n run(s) and %1 checkpoint(s).</source>
        <translation>
            <numerusform>已删除 %n 个运行和 %1 个检查点。</numerusform>
        </translation>
    </message>
    <message>
        <source>Filter by name, variant, layers or tag</source>
        <translation>按名称、变体、层或标签筛选</translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <source>All tags</source>
        <translation>全部标签</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>Save the table as shown (filtered and sorted) as CSV</source>
        <translation>将当前显示的表格（已筛选和排序）保存为 CSV</translation>
    </message>
    <message>
        <source>Select runs to overlay them in Curves; two runs can be diffed.</source>
        <translation>选择运行即可在“曲线”中叠加显示；选择两个运行可比较差异。</translation>
    </message>
    <message>
        <source>Diff specs</source>
        <translation>比较规格</translation>
    </message>
    <message>
        <source>Side-by-side diff of the two selected runs&apos; experiment specs</source>
        <translation>并排比较所选两个运行的实验规格</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Delete the selected runs, their metrics and checkpoints</source>
        <translation>删除所选运行及其指标和检查点</translation>
    </message>
    <message>
        <source>comma-separated tags</source>
        <translation>以逗号分隔的标签</translation>
    </message>
    <message>
        <source>Tags:</source>
        <translation>标签：</translation>
    </message>
    <message>
        <source>Notes on this run</source>
        <translation>此运行的备注</translation>
    </message>
    <message>
        <source>Notes:</source>
        <translation>备注：</translation>
    </message>
    <message>
        <source>Save tags and notes</source>
        <translation>保存标签和备注</translation>
    </message>
    <message>
        <source>Export table</source>
        <translation>导出表格</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>Wrote %1.</source>
        <translation>已写入 %1。</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) selected: overlaid in Curves.</source>
        <translation>
            <numerusform>已选择 %n 个运行：已在“曲线”中叠加显示。</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation>#%1 %2</translation>
    </message>
    <message>
        <source>Spec diff: run %1 and run %2</source>
        <translation>规格差异：运行 %1 与运行 %2</translation>
    </message>
    <message>
        <source>Only differences (%1)</source>
        <translation>仅显示差异（%1）</translation>
    </message>
    <message>
        <source>Run %1 is still running: cancel it first.</source>
        <translation>运行 %1 仍在进行：请先取消。</translation>
    </message>
    <message>
        <source>Delete runs</source>
        <translation>删除运行</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n run(s) with their metrics and checkpoints? This cannot be undone.</source>
        <translation>
            <numerusform>删除 %n 个运行及其指标和检查点？此操作无法撤销。</numerusform>
        </translation>
    </message>
    <message>
        <source>All runs</source>
        <translation>全部运行</translation>
    </message>
    <message>
        <source>Groups: seeds and sweeps</source>
        <translation>分组：种子与扫描</translation>
    </message>
</context>
<context>
    <name>gb::gui::ConfigTableModel</name>
    <message>
        <source>Key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
</context>
<context>
    <name>gb::gui::CurvesView</name>
    <message>
        <source>Forgetting:</source>
        <translation>遗忘：</translation>
    </message>
    <message>
        <source>Original-domain metric (forgetting)</source>
        <translation>原始领域指标（遗忘）</translation>
    </message>
    <message>
        <source>Learning:</source>
        <translation>学习：</translation>
    </message>
    <message>
        <source>New-domain metric or task accuracy (learning)</source>
        <translation>新领域指标或任务准确率（学习）</translation>
    </message>
    <message>
        <source>Smoothing:</source>
        <translation>平滑：</translation>
    </message>
    <message>
        <source>Exponential moving average weight of the curves (0 = raw)</source>
        <translation>曲线的指数移动平均权重（0 = 原始值）</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>对数刻度</translation>
    </message>
    <message>
        <source>Export plot…</source>
        <translation>导出图表…</translation>
    </message>
    <message>
        <source>Save the plot shown as PNG, SVG or PDF</source>
        <translation>将当前图表保存为 PNG、SVG 或 PDF</translation>
    </message>
    <message>
        <source>No runs selected: select runs in Compare or Runs.</source>
        <translation>未选择运行：请在“比较”或“运行”中选择。</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Forgetting and learning</source>
        <translation>遗忘与学习</translation>
    </message>
    <message>
        <source>Trade-off</source>
        <translation>权衡</translation>
    </message>
    <message>
        <source>Run:</source>
        <translation>运行：</translation>
    </message>
    <message>
        <source>After training on task</source>
        <translation>在该任务上训练之后</translation>
    </message>
    <message>
        <source>Evaluated on task</source>
        <translation>评估所用任务</translation>
    </message>
    <message>
        <source>Task matrix</source>
        <translation>任务矩阵</translation>
    </message>
    <message>
        <source>Export plot</source>
        <translation>导出图表</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) overlaid.</source>
        <translation>
            <numerusform>已叠加 %n 个运行。</numerusform>
        </translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation>#%1 %2</translation>
    </message>
    <message>
        <source>Forgetting</source>
        <translation>遗忘</translation>
    </message>
    <message>
        <source>Learning</source>
        <translation>学习</translation>
    </message>
    <message>
        <source>Pareto frontier of final points</source>
        <translation>最终点的帕累托前沿</translation>
    </message>
    <message>
        <source>No task sequence in this run</source>
        <translation>此运行没有任务序列</translation>
    </message>
    <message>
        <source>Task sequences (spec key “sequence”) record an accuracy matrix R: after each task, every task is evaluated.</source>
        <translation>任务序列（规格键“sequence”）会记录准确率矩阵 R：每个任务训练完成后，对所有任务进行评估。</translation>
    </message>
    <message>
        <source>T%1</source>
        <translation>T%1</translation>
    </message>
    <message>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <source>R = −loss (nats)</source>
        <translation>R = −损失（nats）</translation>
    </message>
    <message>
        <source>accuracy, or −loss (nats) for lm tasks</source>
        <translation>准确率；lm 任务为 −损失（nats）</translation>
    </message>
    <message>
        <source>Logarithmic metric axes (the curves&apos; y axes; both trade-off axes when it shows final values)</source>
        <translation>对数指标坐标轴（曲线的 y 轴；权衡图显示最终值时的两个坐标轴）</translation>
    </message>
    <message>
        <source>Trade-off:</source>
        <translation>权衡：</translation>
    </message>
    <message>
        <source>final values</source>
        <translation>最终值</translation>
    </message>
    <message>
        <source>change from step 0 (%)</source>
        <translation>相对第 0 步的变化（%）</translation>
    </message>
    <message>
        <source>Final values of the two metrics (absolute; relative changes of perplexity saturate), or their relative change from step 0</source>
        <translation>两个指标的最终值（绝对值；困惑度的相对变化会饱和），或其相对第 0 步的变化</translation>
    </message>
    <message>
        <source>These runs were not evaluated on the same sets; their curves are not directly comparable:
%1</source>
        <translation>这些运行不是在相同的评估集上评估的；它们的曲线不能直接比较：
%1</translation>
    </message>
    <message>
        <source>#%1 %2 (%3)</source>
        <translation>#%1 %2（%3）</translation>
    </message>
    <message>
        <source>Forgetting: change of %1 from step 0 (%, right = more forgetting)</source>
        <translation>遗忘：%1 相对第 0 步的变化（%，越靠右遗忘越多）</translation>
    </message>
    <message>
        <source>Learning: improvement of %1 from step 0 (%)</source>
        <translation>学习：%1 相对第 0 步的改善（%）</translation>
    </message>
    <message>
        <source>Forgetting: %1 (final value)</source>
        <translation>遗忘：%1（最终值）</translation>
    </message>
    <message>
        <source>Learning: %1 (final value)</source>
        <translation>学习：%1（最终值）</translation>
    </message>
    <message>
        <source>%1 (partial: step %2)</source>
        <translation>%1（不完整：第 %2 步）</translation>
    </message>
    <message>
        <source>Not in the trade-off (no evaluation after step 0): %1</source>
        <translation>未显示在权衡图中（第 0 步之后没有评估）：%1</translation>
    </message>
    <message>
        <source>OP (mean accuracy after the last task) = %1 · BWT (mean change of the earlier tasks&apos; accuracy) = %2</source>
        <translation>OP（最后一个任务之后的平均准确率）= %1 · BWT（先前任务准确率的平均变化）= %2</translation>
    </message>
    <message>
        <source>OP (mean −loss after the last task, nats) = %1 · BWT (mean change of the earlier tasks&apos; −loss, nats; negative: their loss rose) = %2</source>
        <translation>OP（最后一个任务之后的平均 −损失，nats）= %1 · BWT（先前任务 −损失的平均变化，nats；为负表示其损失上升）= %2</translation>
    </message>
    <message>
        <source>OP (mean R after the last task: accuracy, or −loss for lm tasks) = %1 · BWT (mean change of the earlier tasks&apos; R) = %2</source>
        <translation>OP（最后一个任务之后的平均 R：准确率，lm 任务为 −损失）= %1 · BWT（先前任务 R 的平均变化）= %2</translation>
    </message>
</context>
<context>
    <name>gb::gui::ExperimentEditor</name>
    <message>
        <source>task %1</source>
        <translation>任务 %1</translation>
    </message>
    <message>
        <source>biography %1</source>
        <translation>传记 %1</translation>
    </message>
    <message>
        <source>source %1</source>
        <translation>数据源 %1</translation>
    </message>
    <message>
        <source>New</source>
        <translation>新建</translation>
    </message>
    <message>
        <source>A new spec for the model open in the Model view</source>
        <translation>为模型视图中打开的模型新建规格</translation>
    </message>
    <message>
        <source>Open…</source>
        <translation>打开…</translation>
    </message>
    <message>
        <source>Load an experiment spec (JSON) into the editor</source>
        <translation>将实验规格（JSON）载入编辑器</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Save as…</source>
        <translation>另存为…</translation>
    </message>
    <message>
        <source>From selected run</source>
        <translation>来自所选运行</translation>
    </message>
    <message>
        <source>Start from the spec of the run selected in the Runs view (its resolved spec: one plan, absolute paths)</source>
        <translation>以运行视图中所选运行的规格为起点（解析后的规格：一个方案，绝对路径）</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>Write the spec to the workspace and start growbench-cli run</source>
        <translation>将规格写入工作区并启动 growbench-cli run</translation>
    </message>
    <message>
        <source>Experiment</source>
        <translation>实验</translation>
    </message>
    <message>
        <source>Seeds and sweep</source>
        <translation>种子与扫描</translation>
    </message>
    <message>
        <source>Other keys</source>
        <translation>其他键</translation>
    </message>
    <message>
        <source>Top-level keys without a field in this editor, as JSON</source>
        <translation>此编辑器中没有字段的顶层键（JSON）</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Evaluation</source>
        <translation>评估</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Evaluation tasks (at every evaluation)</source>
        <translation>评估任务（每次评估时）</translation>
    </message>
    <message>
        <source>Task sequence</source>
        <translation>任务序列</translation>
    </message>
    <message>
        <source>Instead of new-domain training data: tasks trained in order (the plan applied once); after each task every task is evaluated (accuracy matrix, OP and BWT).</source>
        <translation>代替新领域训练数据：按顺序训练各任务（方案只应用一次）；每个任务之后评估所有任务（准确率矩阵、OP 和 BWT）。</translation>
    </message>
    <message>
        <source>Evaluation of this task</source>
        <translation>此任务的评估</translation>
    </message>
    <message>
        <source>Plans</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>One run per plan (times the sweep points and seeds). Each form is generated from the variant&apos;s parameter schema, as in the Grow planner.</source>
        <translation>每个方案一次运行（乘以扫描点和种子数）。每个表单都由变体的参数模式生成，与增长规划器相同。</translation>
    </message>
    <message>
        <source>plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>Add the planner&apos;s queued plans</source>
        <translation>添加规划器中排队的方案</translation>
    </message>
    <message>
        <source>Append the plans queued in the Grow planner&apos;s comparison</source>
        <translation>追加增长规划器比较队列中的方案</translation>
    </message>
    <message>
        <source>Probes and checkpoints</source>
        <translation>探测与检查点</translation>
    </message>
    <message>
        <source>&lt;b&gt;Command&lt;/b&gt;</source>
        <translation>&lt;b&gt;命令&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy the command line</source>
        <translation>复制命令行</translation>
    </message>
    <message>
        <source>&lt;b&gt;Spec (JSON)&lt;/b&gt;</source>
        <translation>&lt;b&gt;规格（JSON）&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Open an experiment spec</source>
        <translation>打开实验规格</translation>
    </message>
    <message>
        <source>Experiment spec (*.json)</source>
        <translation>实验规格 (*.json)</translation>
    </message>
    <message>
        <source>Save the spec</source>
        <translation>保存规格</translation>
    </message>
    <message>
        <source>Select a run in the Runs view, then use its context menu “Open spec in the editor”.</source>
        <translation>在运行视图中选择一个运行，然后使用其右键菜单“在编辑器中打开规格”。</translation>
    </message>
    <message>
        <source>Cannot launch</source>
        <translation>无法启动</translation>
    </message>
    <message>
        <source>New spec (not saved)</source>
        <translation>新规格（未保存）</translation>
    </message>
    <message>
        <source>Could not read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>%1 is not a JSON object (an experiment spec).</source>
        <translation>%1 不是 JSON 对象（实验规格）。</translation>
    </message>
    <message>
        <source>Loaded %1.</source>
        <translation>已载入 %1。</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Saved %1.</source>
        <translation>已保存 %1。</translation>
    </message>
    <message>
        <source>Run %1 is not in the open store.</source>
        <translation>运行 %1 不在打开的存储中。</translation>
    </message>
    <message>
        <source>Run %1 has no readable spec.</source>
        <translation>运行 %1 没有可读的规格。</translation>
    </message>
    <message>
        <source>From run %1 (not saved)</source>
        <translation>来自运行 %1（未保存）</translation>
    </message>
    <message>
        <source>The spec of run %1: change it and launch it as a new experiment.</source>
        <translation>运行 %1 的规格：修改后作为新实验启动。</translation>
    </message>
    <message numerus="yes">
        <source>This spec stands for %n run(s).</source>
        <translation>
            <numerusform>此规格对应 %n 次运行。</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 does not exist</source>
        <translation>%1 不存在</translation>
    </message>
    <message>
        <source>%1 is not a model folder (no config.json)</source>
        <translation>%1 不是模型文件夹（没有 config.json）</translation>
    </message>
    <message>
        <source>Ready to launch.</source>
        <translation>可以启动。</translation>
    </message>
    <message numerus="yes">
        <source>%n problem(s): %1</source>
        <translation>
            <numerusform>%n 个问题：%1</numerusform>
        </translation>
    </message>
    <message>
        <source>Open a workspace first.</source>
        <translation>请先打开一个工作区。</translation>
    </message>
    <message>
        <source>The spec cannot run yet: %1</source>
        <translation>该规格尚不能运行：%1</translation>
    </message>
    <message>
        <source>Launched %1 (spec %2).</source>
        <translation>已启动 %1（规格 %2）。</translation>
    </message>
</context>
<context>
    <name>gb::gui::GroupCompareView</name>
    <message>
        <source>Group:</source>
        <translation>分组：</translation>
    </message>
    <message>
        <source>The runs of one experiment spec (its seeds, sweep points and plans)</source>
        <translation>一个实验规格的运行（其种子、扫描点和方案）</translation>
    </message>
    <message>
        <source>Group by:</source>
        <translation>分组依据：</translation>
    </message>
    <message>
        <source>Runs with the same value are aggregated (mean and spread over their seeds); “configuration” groups runs that differ only in their seed</source>
        <translation>取值相同的运行会被汇总（按种子计算均值与离散度）；“配置”将仅种子不同的运行归为一组</translation>
    </message>
    <message>
        <source>configuration</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>Filter by name, group or parameter value</source>
        <translation>按名称、分组或参数值筛选</translation>
    </message>
    <message>
        <source>Columns…</source>
        <translation>列…</translation>
    </message>
    <message>
        <source>Choose the hyper-parameters and figures shown in the table</source>
        <translation>选择表格中显示的超参数和指标</translation>
    </message>
    <message>
        <source>Clear brushes</source>
        <translation>清除刷选</translation>
    </message>
    <message>
        <source>Remove the ranges drawn on the parallel-coordinates axes</source>
        <translation>移除在平行坐标轴上绘制的范围</translation>
    </message>
    <message>
        <source>Rows:</source>
        <translation>行：</translation>
    </message>
    <message>
        <source>runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>groups (mean ± std over complete runs)</source>
        <translation>分组（完整运行的均值 ± 标准差）</translation>
    </message>
    <message>
        <source>Table</source>
        <translation>表格</translation>
    </message>
    <message>
        <source>Metric:</source>
        <translation>指标：</translation>
    </message>
    <message>
        <source>Band:</source>
        <translation>区间带：</translation>
    </message>
    <message>
        <source>± standard deviation</source>
        <translation>± 标准差</translation>
    </message>
    <message>
        <source>min – max</source>
        <translation>最小值 – 最大值</translation>
    </message>
    <message>
        <source>The spread over the runs of a group (their seeds) at each step</source>
        <translation>每一步上一组运行（其种子）之间的离散度</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>对数刻度</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Curves</source>
        <translation>曲线</translation>
    </message>
    <message>
        <source>Axes…</source>
        <translation>坐标轴…</translation>
    </message>
    <message>
        <source>Choose the hyper-parameters and figures shown as axes</source>
        <translation>选择作为坐标轴显示的超参数和指标</translation>
    </message>
    <message>
        <source>Drag along an axis to keep only the runs in that range (click the axis to clear); the table, the group statistics, the curves and the trade-off follow.</source>
        <translation>沿坐标轴拖动以只保留该范围内的运行（单击坐标轴清除）；表格、分组统计、曲线和权衡图随之更新。</translation>
    </message>
    <message>
        <source>Parallel coordinates</source>
        <translation>平行坐标</translation>
    </message>
    <message>
        <source>log</source>
        <translation>对数</translation>
    </message>
    <message>
        <source>Forgetting budget:</source>
        <translation>遗忘预算：</translation>
    </message>
    <message>
        <source>Per method, the configuration with the best learning whose mean forgetting (relative change of the forgetting metric on the validation sets) stays within this budget is marked</source>
        <translation>对每种方法，标记平均遗忘（验证集上遗忘指标的相对变化）不超过此预算且学习效果最好的配置</translation>
    </message>
    <message>
        <source>Trade-off</source>
        <translation>权衡</translation>
    </message>
    <message>
        <source>Hyper-parameters</source>
        <translation>超参数</translation>
    </message>
    <message>
        <source>Figures</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Reading group %1…</source>
        <translation>正在读取分组 %1…</translation>
    </message>
    <message>
        <source>Could not read group %1: %2</source>
        <translation>无法读取分组 %1：%2</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n 个运行</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 complete</source>
        <translation>%1 个完整</translation>
    </message>
    <message>
        <source>%1 partial (not finished: figures marked with their step)</source>
        <translation>%1 个不完整（未结束：指标标注其步数）</translation>
    </message>
    <message>
        <source>%1 without an evaluation after step 0 (no figures)</source>
        <translation>%1 个在第 0 步之后没有评估（无指标）</translation>
    </message>
    <message>
        <source>The runs of this group do not all use the same evaluation sets, so their figures are not directly comparable:
%1</source>
        <translation>该组的运行并非都使用相同的评估集，因此它们的指标不能直接比较：
%1</translation>
    </message>
    <message>
        <source>Other metrics</source>
        <translation>其他指标</translation>
    </message>
    <message>
        <source>Default columns</source>
        <translation>默认列</translation>
    </message>
    <message>
        <source>forgetting (%)</source>
        <translation>遗忘（%）</translation>
    </message>
    <message>
        <source>learning (%)</source>
        <translation>学习（%）</translation>
    </message>
    <message>
        <source>#%1 %2 (%3)</source>
        <translation>#%1 %2（%3）</translation>
    </message>
    <message>
        <source>x has values ≤ 0: linear scale.</source>
        <translation>x 存在 ≤ 0 的值：使用线性刻度。</translation>
    </message>
    <message>
        <source>y has values ≤ 0: linear scale.</source>
        <translation>y 存在 ≤ 0 的值：使用线性刻度。</translation>
    </message>
    <message>
        <source>single runs</source>
        <translation>单个运行</translation>
    </message>
    <message>
        <source>partial runs (not finished)</source>
        <translation>不完整的运行（未结束）</translation>
    </message>
    <message>
        <source> (n=%1)</source>
        <translation>（n=%1）</translation>
    </message>
    <message>
        <source>best ≤ %1 %: %2</source>
        <translation>≤ %1 % 中最佳：%2</translation>
    </message>
    <message>
        <source>best within the %1 % budget, per method</source>
        <translation>每种方法在 %1 % 预算内的最佳配置</translation>
    </message>
    <message numerus="yes">
        <source>%n group(s) without complete runs are not drawn.</source>
        <translation>
            <numerusform>%n 个没有完整运行的分组未绘制。</numerusform>
        </translation>
    </message>
    <message>
        <source>Points: mean over the complete runs of a group; bars: ± one standard deviation.</source>
        <translation>点：一组完整运行的均值；误差棒：± 一个标准差。</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>Within budget</source>
        <translation>在预算内</translation>
    </message>
    <message>
        <source>Chosen configuration</source>
        <translation>所选配置</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Forgetting of %1 (%2)</source>
        <translation>%1 的遗忘（%2）</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message numerus="yes">
        <source>chosen among %n configuration(s)</source>
        <translation>
            <numerusform>从 %n 个配置中选出</numerusform>
        </translation>
    </message>
    <message>
        <source>(the only one)</source>
        <translation>（唯一的配置）</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>No configuration of %1 stays within the budget; the least mean forgetting is %2 %</source>
        <translation>%1 没有配置在预算内；最小平均遗忘为 %2 %</translation>
    </message>
    <message>
        <source>least forgetting: %1 %</source>
        <translation>最小遗忘：%1 %</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>正在读取 %1…</translation>
    </message>
    <message>
        <source>No run of the shown groups has %1.</source>
        <translation>所显示分组中没有运行包含 %1。</translation>
    </message>
    <message>
        <source>Lines: mean over the runs of a group at each step; band: ± one standard deviation. Runs without a step are left out there.</source>
        <translation>线：每一步上一组运行的均值；区间带：± 一个标准差。缺少该步的运行在该处不计入。</translation>
    </message>
    <message>
        <source>Lines: mean over the runs of a group at each step; band: min to max. Runs without a step are left out there.</source>
        <translation>线：每一步上一组运行的均值；区间带：最小值到最大值。缺少该步的运行在该处不计入。</translation>
    </message>
    <message>
        <source>Show:</source>
        <translation>显示：</translation>
    </message>
    <message>
        <source>fronts at matched learning</source>
        <translation>相同学习程度下的前沿</translation>
    </message>
    <message>
        <source>configurations within a budget</source>
        <translation>预算内的配置</translation>
    </message>
    <message>
        <source>Fronts: each plan&apos;s forgetting at matched learning over its rates and steps (the fair comparison). Configurations: each configuration&apos;s final values, and the best one per method within a forgetting budget</source>
        <translation>前沿：每个方案在其所有学习率和步数上相同学习程度下的遗忘（公平的比较）。配置：每个配置的最终值，以及在遗忘预算内每种方法的最佳配置</translation>
    </message>
    <message>
        <source>Forgetting:</source>
        <translation>遗忘：</translation>
    </message>
    <message>
        <source>Forgetting metric: a final value, or the change from step 0 (the fronts use its values at every evaluation)</source>
        <translation>遗忘指标：最终值，或相对第 0 步的变化（前沿使用其每次评估的值）</translation>
    </message>
    <message>
        <source>Learning:</source>
        <translation>学习：</translation>
    </message>
    <message>
        <source>Learning metric: a final value, or the change from step 0 (the fronts use its values at every evaluation)</source>
        <translation>学习指标：最终值，或相对第 0 步的变化（前沿使用其每次评估的值）</translation>
    </message>
    <message>
        <source>Evaluated points</source>
        <translation>评估点</translation>
    </message>
    <message>
        <source>Every evaluation of every run, faintly, behind the fronts</source>
        <translation>每个运行的每次评估，以浅色绘于前沿之后</translation>
    </message>
    <message>
        <source>Auto level</source>
        <translation>自动水平</translation>
    </message>
    <message>
        <source>Back to the automatic level: the best learning every seed of every plan reaches</source>
        <translation>回到自动水平：每个方案的每个种子都能达到的最佳学习程度</translation>
    </message>
    <message>
        <source>Drag the dashed line to compare at another level of learning; double-click to go back to the automatic level</source>
        <translation>拖动虚线以在另一学习水平上比较；双击回到自动水平</translation>
    </message>
    <message>
        <source>forgetting at matched learning</source>
        <translation>相同学习程度下的遗忘</translation>
    </message>
    <message>
        <source>does not reach</source>
        <translation>未达到</translation>
    </message>
    <message>
        <source>forgetting at learning %1</source>
        <translation>学习为 %1 时的遗忘</translation>
    </message>
    <message>
        <source>learning (%1)</source>
        <translation>学习（%1）</translation>
    </message>
    <message>
        <source>No forgetting at matched learning: %1</source>
        <translation>无相同学习程度下的遗忘：%1</translation>
    </message>
    <message>
        <source>Matched learning: %1 %2</source>
        <translation>相同学习程度：%1 %2</translation>
    </message>
    <message>
        <source>(auto: the best level every seed of every plan reaches; drag the dashed line to choose another)</source>
        <translation>（自动：每个方案的每个种子都能达到的最佳水平；拖动虚线可选择其他水平）</translation>
    </message>
    <message>
        <source>(dragged; double-click the plot or press Auto level to go back)</source>
        <translation>（已拖动；双击图表或按“自动水平”返回）</translation>
    </message>
    <message>
        <source>forgetting: %1 on the %2 sets</source>
        <translation>遗忘：%2 集上的 %1</translation>
    </message>
    <message>
        <source>test</source>
        <translation>测试</translation>
    </message>
    <message>
        <source>validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <source> (auto)</source>
        <translation>（自动）</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>Seeds reaching</source>
        <translation>达到的种子</translation>
    </message>
    <message>
        <source>%1 at %2 %3</source>
        <translation>%2 %3 时的 %1</translation>
    </message>
    <message>
        <source>Chosen points (per seed: run, learning rate, step)</source>
        <translation>选中的点（每个种子：运行、学习率、步）</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%2 中的 %1</translation>
    </message>
    <message>
        <source>No run of %1 (any rate, any evaluation) reaches %2 %3</source>
        <translation>%1 没有任何运行（任意学习率、任意评估）达到 %2 %3</translation>
    </message>
    <message>
        <source>seed %1: run %2, lr %3, step %4 (%5)</source>
        <translation>种子 %1：运行 %2，学习率 %3，步 %4（%5）</translation>
    </message>
    <message>
        <source>seed %1: does not reach</source>
        <translation>种子 %1：未达到</translation>
    </message>
    <message>
        <source>No fronts: %1</source>
        <translation>无前沿：%1</translation>
    </message>
    <message>
        <source>Learning: %1 (validation; better to the left)</source>
        <translation>学习：%1（验证；越靠左越好）</translation>
    </message>
    <message>
        <source>Learning: %1 (validation; better to the right)</source>
        <translation>学习：%1（验证；越靠右越好）</translation>
    </message>
    <message>
        <source>Forgetting at matched learning: %1</source>
        <translation>相同学习程度下的遗忘：%1</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n seed(s))</source>
        <translation>
            <numerusform>%1（%n 个种子）</numerusform>
        </translation>
    </message>
    <message>
        <source>Lines: per plan, the least forgetting at each level of learning over its rates and evaluations (mean over its seeds; band: ± one standard deviation), drawn where every seed reaches the level.</source>
        <translation>线：每个方案在各学习水平上、其所有学习率和评估中的最少遗忘（对种子取均值；带：± 一个标准差），仅在每个种子都达到该水平处绘制。</translation>
    </message>
    <message>
        <source>Dots: every evaluation of every run.</source>
        <translation>点：每个运行的每次评估。</translation>
    </message>
    <message>
        <source>Only the runs the filters let through.</source>
        <translation>仅包含通过筛选的运行。</translation>
    </message>
    <message>
        <source>No level is reached by every seed of: %1.</source>
        <translation>以下方案没有所有种子都能达到的水平：%1。</translation>
    </message>
    <message>
        <source>Validation sets: %1</source>
        <translation>验证集：%1</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) not finished or without evaluations are left out.</source>
        <translation>
            <numerusform>%n 个未完成或没有评估的运行被略去。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>gb::gui::GroupRunModel</name>
    <message>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>The group of the run under the current grouping</source>
        <translation>当前分组方式下该运行所属的分组</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>分组</translation>
    </message>
    <message>
        <source>Hyper-parameter %1</source>
        <translation>超参数 %1</translation>
    </message>
    <message>
        <source>Relative change of %1 from step 0 to the final evaluation (positive = more forgetting)</source>
        <translation>%1 从第 0 步到最终评估的相对变化（正值 = 遗忘更多）</translation>
    </message>
    <message>
        <source>Relative improvement of %1 from step 0 to the final evaluation</source>
        <translation>%1 从第 0 步到最终评估的相对改善</translation>
    </message>
    <message>
        <source>Final value of %1</source>
        <translation>%1 的最终值</translation>
    </message>
    <message>
        <source>Forgetting</source>
        <translation>遗忘</translation>
    </message>
    <message>
        <source>%1 (step %2)</source>
        <translation>%1（第 %2 步）</translation>
    </message>
    <message>
        <source>No figure: run %1 is %2 and has no evaluation after step 0</source>
        <translation>无指标：运行 %1 状态为 %2，且在第 0 步之后没有评估</translation>
    </message>
    <message>
        <source>Partial: run %1 is %2; this figure is from step %3 of %4</source>
        <translation>不完整：运行 %1 状态为 %2；该指标来自第 %3 步（共 %4 步）</translation>
    </message>
    <message>
        <source>Learning (%)</source>
        <translation>学习（%）</translation>
    </message>
</context>
<context>
    <name>gb::gui::GroupStatsModel</name>
    <message>
        <source>Group</source>
        <translation>分组</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Forgetting (%)</source>
        <translation>遗忘（%）</translation>
    </message>
    <message>
        <source>Learning (%)</source>
        <translation>学习（%）</translation>
    </message>
    <message>
        <source>Complete runs (finished, evaluated) / runs in the group</source>
        <translation>完整运行（已结束且已评估）/ 组内运行数</translation>
    </message>
    <message>
        <source>%1: mean ± sample standard deviation over the complete runs of the group</source>
        <translation>%1：组内完整运行的均值 ± 样本标准差</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>No complete run in this group has this figure</source>
        <translation>该组没有完整运行具有此指标</translation>
    </message>
    <message numerus="yes">
        <source>mean %1, std %2, min %3, max %4 over %n complete run(s)</source>
        <translation>
            <numerusform>%n 个完整运行的均值 %1、标准差 %2、最小值 %3、最大值 %4</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) without a final evaluation are left out of the figures</source>
        <translation>
            <numerusform>%n 个没有最终评估的运行未计入指标</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>gb::gui::GrowPlanner</name>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Check cancelled.</source>
        <translation>检查已取消。</translation>
    </message>
    <message>
        <source>The check failed: %1</source>
        <translation>检查失败：%1</translation>
    </message>
    <message>
        <source>not function preserving by design</source>
        <translation>按设计不保持函数不变</translation>
    </message>
    <message>
        <source>preserved</source>
        <translation>已保持</translation>
    </message>
    <message>
        <source>NOT preserved: check the operator</source>
        <translation>未保持：请检查算子</translation>
    </message>
    <message>
        <source>max |logit diff| = %1 (%2) · exact: %3 added, %4 trainable (%5)</source>
        <translation>最大 |logit 差| = %1（%2）· 精确值：新增 %3，可训练 %4（%5）</translation>
    </message>
    <message>
        <source>Variant:</source>
        <translation>变体：</translation>
    </message>
    <message>
        <source>optional label for tables and plots</source>
        <translation>可选，用于表格和图表的标签</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Hyper-parameters</source>
        <translation>超参数</translation>
    </message>
    <message>
        <source>All layers</source>
        <translation>所有层</translation>
    </message>
    <message>
        <source>Selected in the heatmap</source>
        <translation>热力图中选中的层</translation>
    </message>
    <message>
        <source>Manual list</source>
        <translation>手动列表</translation>
    </message>
    <message>
        <source>Policies are resolved from importance probes when the run starts (growbench-cli run)</source>
        <translation>策略在运行开始时根据重要性探测确定（growbench-cli run）</translation>
    </message>
    <message>
        <source>k = </source>
        <translation>k = </translation>
    </message>
    <message>
        <source>e.g. 0-3, 7</source>
        <translation>例如 0-3, 7</translation>
    </message>
    <message>
        <source>Layers:</source>
        <translation>层：</translation>
    </message>
    <message>
        <source>Figures</source>
        <translation>估算数值</translation>
    </message>
    <message>
        <source>float32 weights, plus gradients and AdamW&apos;s two moments for the trainable parameters; activations not included</source>
        <translation>float32 权重，外加可训练参数的梯度和 AdamW 的两个矩估计；不含激活值</translation>
    </message>
    <message>
        <source>Base parameters:</source>
        <translation>基础参数：</translation>
    </message>
    <message>
        <source>Parameters added:</source>
        <translation>新增参数：</translation>
    </message>
    <message>
        <source>Trainable:</source>
        <translation>可训练：</translation>
    </message>
    <message>
        <source>Estimated memory:</source>
        <translation>估计内存：</translation>
    </message>
    <message>
        <source>Function preserving:</source>
        <translation>保持函数不变：</translation>
    </message>
    <message>
        <source>Check preservation</source>
        <translation>检查保持性</translation>
    </message>
    <message>
        <source>Apply the plan with growbench-cli grow and compare the logits of the grown and the base model on a fixed random batch</source>
        <translation>用 growbench-cli grow 应用该方案，并在一个固定的随机批次上比较扩展后模型与基础模型的 logits</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>The plan as JSON (docs/plans.md)</source>
        <translation>JSON 格式的方案（docs/plans.md）</translation>
    </message>
    <message>
        <source>Comparison</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Add to comparison</source>
        <translation>加入对比</translation>
    </message>
    <message>
        <source>Queue this plan; the queued plans run as one comparison (one run each, same data and seed)</source>
        <translation>将此方案加入队列；队列中的方案作为一次对比运行（每个方案一次运行，数据和随机种子相同）</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <source>Launch…</source>
        <translation>启动…</translation>
    </message>
    <message>
        <source>Open the Runs view to launch the queued plans</source>
        <translation>打开“运行”视图以启动队列中的方案</translation>
    </message>
    <message>
        <source>This variant has no hyper-parameters.</source>
        <translation>此变体没有超参数。</translation>
    </message>
    <message>
        <source>No layers selected.</source>
        <translation>未选择任何层。</translation>
    </message>
    <message>
        <source>Open a model to see the figures.</source>
        <translation>打开模型以查看估算数值。</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#c62828&apos;&gt;%1&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#c62828&apos;&gt;%1&lt;/span&gt;</translation>
    </message>
    <message>
        <source>%1 · %2 of the base</source>
        <translation>%1 · 占基础模型的 %2</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>yes, at initialisation</source>
        <translation>是（初始化时）</translation>
    </message>
    <message>
        <source>no (routing changes outputs)</source>
        <translation>否（路由会改变输出）</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#c62828&apos;&gt;Not queued: %1&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#c62828&apos;&gt;未加入队列：%1&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Open a model first.</source>
        <translation>请先打开一个模型。</translation>
    </message>
    <message>
        <source>The check needs explicit layers: select some in the heatmap (the policy itself is resolved when the run starts).</source>
        <translation>检查需要明确的层：请在热力图中选择（策略本身在运行开始时才确定）。</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>%1:</source>
        <comment>form label</comment>
        <translation>%1：</translation>
    </message>
    <message>
        <source>Training of this plan</source>
        <translation>此计划的训练</translation>
    </message>
    <message>
        <source>Replay:</source>
        <translation>回放：</translation>
    </message>
    <message>
        <source>λ = </source>
        <translation>λ = </translation>
    </message>
    <message>
        <source>γ = </source>
        <translation>γ = </translation>
    </message>
    <message>
        <source>EWC:</source>
        <translation>EWC：</translation>
    </message>
    <message>
        <source>Trainable parameters active per token: routed experts count top-k of K; the other variants activate everything they train</source>
        <translation>每个 token 激活的可训练参数：路由专家按 K 个中的 top-k 计数；其他变体激活其训练的全部参数</translation>
    </message>
    <message>
        <source>Activated per token:</source>
        <translation>每 token 激活：</translation>
    </message>
    <message>
        <source>The plan changed during the check: check it again.</source>
        <translation>检查期间方案已更改：请重新检查。</translation>
    </message>
    <message>
        <source>A label for tables and plots; empty: the plan&apos;s own label (shown)</source>
        <translation>表格和图中的标签；留空：使用方案自身的标签（已显示）</translation>
    </message>
    <message>
        <source>The name “%1” was cleared: it named the previous variant.</source>
        <translation>名称“%1”已清除：它命名的是之前的变体。</translation>
    </message>
    <message>
        <source>%1: %2 → %3</source>
        <translation>%1：%2 → %3</translation>
    </message>
    <message>
        <source>Not checked since the plan or the model changed: “Check preservation” checks this plan.</source>
        <translation>方案或模型更改后尚未检查：“检查保持性”会检查此方案。</translation>
    </message>
    <message>
        <source>default: %1</source>
        <translation>默认：%1</translation>
    </message>
    <message>
        <source>Adjusted to the new model: %1</source>
        <translation>已适配新模型：%1</translation>
    </message>
    <message>
        <source>Suggest a plan…</source>
        <translation>建议计划…</translation>
    </message>
    <message>
        <source>Let a budgeted search over the variants, layers and rates recommend a plan for the workspace&apos;s model and data (growbench-cli suggest)</source>
        <translation>让一次有预算的搜索在变体、层和学习率之间为工作区的模型和数据推荐一个计划（growbench-cli suggest）</translation>
    </message>
    <message>
        <source>Policy of the loaded plan</source>
        <translation>已加载计划的策略</translation>
    </message>
    <message>
        <source>The layer policy of the plan loaded (e.g. from “Suggest a plan”), as it was</source>
        <translation>已加载计划（例如来自“建议计划”）的层选择策略，保持原样</translation>
    </message>
    <message>
        <source>The plan has no variant.</source>
        <translation>该计划没有变体。</translation>
    </message>
    <message>
        <source>The plan is not valid: %1</source>
        <translation>该计划无效：%1</translation>
    </message>
    <message>
        <source>The planner has no variant %1.</source>
        <translation>规划器没有变体 %1。</translation>
    </message>
    <message>
        <source>The form cannot hold this plan: %1</source>
        <translation>表单无法容纳此计划：%1</translation>
    </message>
    <message>
        <source>The form cannot hold every value of this plan: %1</source>
        <translation>表单无法容纳此计划的所有值：%1</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#c62828&apos;&gt;The recommended plan was not loaded: %1&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#c62828&apos;&gt;推荐的计划未加载：%1&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Recommended by “Suggest a plan” with learning rate %1 over %2 steps (the Runs view&apos;s launch form takes both).</source>
        <translation>由“建议计划”推荐，学习率 %1，共 %2 步（“运行”视图的启动表单会采用这两个值）。</translation>
    </message>
    <message>
        <source>Loaded into the Grow planner as its current plan: edit it there, add it to the comparison or launch it from the Runs view.</source>
        <translation>已作为当前计划载入增长规划器：可在其中编辑、加入对比，或在“运行”视图中启动。</translation>
    </message>
    <message>
        <source>Not loaded into the planner: %1</source>
        <translation>未载入规划器：%1</translation>
    </message>
</context>
<context>
    <name>gb::gui::HeatmapPlot</name>
    <message>
        <source>No data</source>
        <translation>无数据</translation>
    </message>
    <message>
        <source>no value</source>
        <translation>无值</translation>
    </message>
    <message>
        <source>Layer %1 · %2
%3: %4</source>
        <translation>第 %1 层 · %2
%3：%4</translation>
    </message>
    <message>
        <source>Layer %1
%2: %3</source>
        <translation>第 %1 层
%2：%3</translation>
    </message>
</context>
<context>
    <name>gb::gui::ImportanceView</name>
    <message>
        <source>effective rank of ΔW_up</source>
        <translation>ΔW_up 的有效秩</translation>
    </message>
    <message>
        <source>%1 · ETA %2</source>
        <translation>%1 · 预计剩余 %2</translation>
    </message>
    <message>
        <source>Probe cancelled.</source>
        <translation>探测已取消。</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>The probe failed: %1</source>
        <translation>探测失败：%1</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Probe %1 recorded.</source>
        <translation>探测 %1 已记录。</translation>
    </message>
    <message>
        <source>Selected layers: none</source>
        <translation>已选层：无</translation>
    </message>
    <message>
        <source>Selected layers: %1</source>
        <translation>已选层：%1</translation>
    </message>
    <message>
        <source>Probe:</source>
        <translation>探测：</translation>
    </message>
    <message>
        <source>Importance probes recorded in this workspace&apos;s store</source>
        <translation>此工作区存储中记录的重要性探测</translation>
    </message>
    <message>
        <source>Only this model</source>
        <translation>仅此模型</translation>
    </message>
    <message>
        <source>List only the probes of the model open in the Model view</source>
        <translation>只列出“模型”视图中已打开模型的探测</translation>
    </message>
    <message>
        <source>New probe…</source>
        <translation>新建探测…</translation>
    </message>
    <message>
        <source>Run a new importance probe on the current model</source>
        <translation>对当前模型运行新的重要性探测</translation>
    </message>
    <message>
        <source>New probe</source>
        <translation>新建探测</translation>
    </message>
    <message>
        <source>Layer masking: loss increase when a layer is bypassed</source>
        <translation>层掩蔽：跳过某一层时损失的增加</translation>
    </message>
    <message>
        <source>Taylor, absolute: mean |θ·∂L/∂θ| per unit</source>
        <translation>Taylor（绝对值）：每个单元的 |θ·∂L/∂θ| 均值</translation>
    </message>
    <message>
        <source>Fisher: sum of squared log-likelihood gradients</source>
        <translation>Fisher：对数似然梯度的平方和</translation>
    </message>
    <message>
        <source>Update magnitude ‖W_T − W_0‖ after a short fine-tuning run (Grow §4.2)</source>
        <translation>短时微调运行后的更新幅度 ‖W_T − W_0‖（Grow §4.2）</translation>
    </message>
    <message>
        <source>Effective rank of ΔW_up per layer and training stage (Grow §4.4)</source>
        <translation>每层、每个训练阶段的 ΔW_up 有效秩（Grow §4.4）</translation>
    </message>
    <message>
        <source>Method:</source>
        <translation>方法：</translation>
    </message>
    <message>
        <source>Probe data</source>
        <translation>探测数据</translation>
    </message>
    <message>
        <source>General data:</source>
        <translation>通用数据：</translation>
    </message>
    <message>
        <source>original-domain text, JSONL or multiple-choice JSONL</source>
        <translation>原始领域文本、JSONL 或多项选择 JSONL</translation>
    </message>
    <message>
        <source>Domain data:</source>
        <translation>领域数据：</translation>
    </message>
    <message>
        <source>optional: new-domain data for calibrated scores</source>
        <translation>可选：用于校准分数的新领域数据</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Token budget of the probe set (0 = all of it)</source>
        <translation>探测集的词元预算（0 = 全部）</translation>
    </message>
    <message>
        <source>Tokens:</source>
        <translation>词元数：</translation>
    </message>
    <message>
        <source>Run probe</source>
        <translation>运行探测</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Show:</source>
        <translation>显示：</translation>
    </message>
    <message>
        <source>Raw values</source>
        <translation>原始值</translation>
    </message>
    <message>
        <source>Absolute values</source>
        <translation>绝对值</translation>
    </message>
    <message>
        <source>Calibrated (domain rank − general rank)</source>
        <translation>校准（领域排名 − 通用排名）</translation>
    </message>
    <message>
        <source>ADEPT App. R: negative = more important on the domain set than on the general set</source>
        <translation>ADEPT 附录 R：负值 = 在领域集上比在通用集上更重要</translation>
    </message>
    <message>
        <source>Min–max scale every unit column to [0, 1] so units with different magnitudes can be compared</source>
        <translation>将每个单元列按最小–最大值缩放到 [0, 1]，以便比较量级不同的单元</translation>
    </message>
    <message>
        <source>Domain probe:</source>
        <translation>领域探测：</translation>
    </message>
    <message>
        <source>The probe on the new-domain data, for calibrated scores</source>
        <translation>在新领域数据上的探测，用于校准分数</translation>
    </message>
    <message>
        <source>Export plot…</source>
        <translation>导出图表…</translation>
    </message>
    <message>
        <source>Save the heatmap shown as PNG, SVG or PDF</source>
        <translation>将当前热力图保存为 PNG、SVG 或 PDF</translation>
    </message>
    <message>
        <source>Export plot</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>Wrote %1.</source>
        <translation>已写入 %1。</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Unit</source>
        <translation>单元</translation>
    </message>
    <message>
        <source>Layers × units</source>
        <translation>层 × 单元</translation>
    </message>
    <message>
        <source>Effective-rank probe:</source>
        <translation>有效秩探测：</translation>
    </message>
    <message>
        <source>Training stage</source>
        <translation>训练阶段</translation>
    </message>
    <message>
        <source>Effective rank</source>
        <translation>有效秩</translation>
    </message>
    <message>
        <source>Select layers</source>
        <translation>选择层</translation>
    </message>
    <message>
        <source>Least important</source>
        <translation>最不重要</translation>
    </message>
    <message>
        <source>The k layers with the lowest general importance (ADEPT: expand the layers least important for general competence)</source>
        <translation>通用重要性最低的 k 层（ADEPT：扩展对通用能力最不重要的层）</translation>
    </message>
    <message>
        <source>k = </source>
        <translation>k = </translation>
    </message>
    <message>
        <source>Number of layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>Top-N by update</source>
        <translation>按更新幅度取前 N 层</translation>
    </message>
    <message>
        <source>The N layers with the largest weight-update magnitude after a short fine-tuning run (the Grow paper&apos;s layer choice); needs an update-magnitude probe</source>
        <translation>短时微调运行后权重更新幅度最大的 N 层（Grow 论文的选层方式）；需要一个更新幅度探测</translation>
    </message>
    <message>
        <source>N = </source>
        <translation>N = </translation>
    </message>
    <message>
        <source>Uniform</source>
        <translation>均匀</translation>
    </message>
    <message>
        <source>One layer after every L/P layers (LLaMA-Pro&apos;s positions)</source>
        <translation>每 L/P 层取一层（LLaMA-Pro 的位置）</translation>
    </message>
    <message>
        <source>P = </source>
        <translation>P = </translation>
    </message>
    <message>
        <source>Number of positions</source>
        <translation>位置数</translation>
    </message>
    <message>
        <source>Above L_fp</source>
        <translation>L_fp 以上</translation>
    </message>
    <message>
        <source>Every layer above the lowest L_fp (SCALE&apos;s collaboration layers)</source>
        <translation>最低 L_fp 层以上的所有层（SCALE 的协作层）</translation>
    </message>
    <message>
        <source>L_fp = </source>
        <translation>L_fp = </translation>
    </message>
    <message>
        <source>Lowest layers left out</source>
        <translation>排除的最低层数</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <source>Click or drag over layers in the heatmap or the bars; Ctrl adds or removes layers</source>
        <translation>在热力图或柱状图中点击或拖动选择层；按住 Ctrl 可添加或移除层</translation>
    </message>
    <message>
        <source>No probe shown</source>
        <translation>未显示探测</translation>
    </message>
    <message>
        <source>#%1 %2 · %3 · %4</source>
        <translation>#%1 %2 · %3 · %4</translation>
    </message>
    <message>
        <source>Model: %1
Probe set: %2</source>
        <translation>模型：%1
探测集：%2</translation>
    </message>
    <message>
        <source>No probe for this model yet: run one with “New probe…”</source>
        <translation>此模型尚无探测：请通过“新建探测…”运行一次</translation>
    </message>
    <message>
        <source>No probes in this workspace</source>
        <translation>此工作区中没有探测</translation>
    </message>
    <message>
        <source>No effective-rank probe: run one with method “effective-rank”</source>
        <translation>没有有效秩探测：请使用方法“effective-rank”运行一次</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation>#%1 %2</translation>
    </message>
    <message>
        <source>Could not read probe %1: %2</source>
        <translation>无法读取探测 %1：%2</translation>
    </message>
    <message>
        <source>Could not read this probe</source>
        <translation>无法读取此探测</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Calibrated scores need a domain probe of the same method and model: choose one under “Domain probe”</source>
        <translation>校准分数需要同一方法、同一模型的领域探测：请在“领域探测”中选择</translation>
    </message>
    <message>
        <source>This probe has no values</source>
        <translation>此探测没有数值</translation>
    </message>
    <message>
        <source>%1 · %2 layers</source>
        <translation>%1 · %2 层</translation>
    </message>
    <message>
        <source> · probe set: %1 · %2 s</source>
        <translation> · 探测集：%1 · %2 秒</translation>
    </message>
    <message>
        <source> · base loss %1</source>
        <translation> · 基础损失 %1</translation>
    </message>
    <message>
        <source>This probe has no stage matrix</source>
        <translation>此探测没有阶段矩阵</translation>
    </message>
    <message>
        <source>Effective rank (exp of the entropy of the normalised singular values) of each layer&apos;s up-projection update per training stage; a low rank means the update concentrates in few directions.</source>
        <translation>各层上投影更新在每个训练阶段的有效秩（归一化奇异值熵的指数）；秩越低，说明更新越集中于少数方向。</translation>
    </message>
    <message>
        <source>Selected layers %1 (%2).</source>
        <translation>已选层 %1（%2）。</translation>
    </message>
    <message>
        <source>Could not apply the policy: %1</source>
        <translation>无法应用该策略：%1</translation>
    </message>
    <message>
        <source>Show a masking, Taylor or Fisher probe first.</source>
        <translation>请先显示一个掩蔽、Taylor 或 Fisher 探测。</translation>
    </message>
    <message>
        <source>“Least important” needs a masking, Taylor or Fisher probe.</source>
        <translation>“最不重要”需要一个掩蔽、Taylor 或 Fisher 探测。</translation>
    </message>
    <message>
        <source>No update-magnitude probe for this model: run one (New probe…, method update-magnitude) on the new-domain data.</source>
        <translation>此模型没有更新幅度探测：请在新领域数据上运行一次（新建探测…，方法 update-magnitude）。</translation>
    </message>
    <message>
        <source>Open a model first.</source>
        <translation>请先打开一个模型。</translation>
    </message>
    <message>
        <source>Open a model in the Model view first.</source>
        <translation>请先在“模型”视图中打开一个模型。</translation>
    </message>
    <message>
        <source>The model folder has no tokenizer.json: probes need one.</source>
        <translation>模型文件夹中没有 tokenizer.json：探测需要该文件。</translation>
    </message>
    <message>
        <source>Choose the general probe data (a text or JSONL file).</source>
        <translation>请选择通用探测数据（文本或 JSONL 文件）。</translation>
    </message>
    <message>
        <source>Open a workspace first.</source>
        <translation>请先打开一个工作区。</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Probing %1 with %2…</source>
        <translation>正在用 %2 探测 %1…</translation>
    </message>
    <message>
        <source>Could not select: %1</source>
        <translation>无法选择：%1</translation>
    </message>
    <message>
        <source>Layer masking (loss increase)</source>
        <translation>层屏蔽（损失增加）</translation>
    </message>
    <message>
        <source>Taylor θ·g (signed)</source>
        <translation>Taylor θ·g（带符号）</translation>
    </message>
    <message>
        <source>Taylor |θ·g|</source>
        <translation>Taylor |θ·g|</translation>
    </message>
    <message>
        <source>Fisher Σ g²</source>
        <translation>Fisher Σ g²</translation>
    </message>
    <message>
        <source>Update magnitude ‖ΔW‖</source>
        <translation>更新幅度 ‖ΔW‖</translation>
    </message>
    <message>
        <source>Effective rank of ΔW_up</source>
        <translation>ΔW_up 的有效秩</translation>
    </message>
    <message>
        <source>File…</source>
        <translation>文件…</translation>
    </message>
    <message>
        <source>Choose a file (files without an extension are shown too)</source>
        <translation>选择文件（也会显示无扩展名的文件）</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>文件夹…</translation>
    </message>
    <message>
        <source>Choose a folder (e.g. a folder of fortune files)</source>
        <translation>选择文件夹（例如 fortune 文件所在的文件夹）</translation>
    </message>
    <message>
        <source>Text or JSONL (*.txt *.jsonl *.json)</source>
        <translation>文本或 JSONL (*.txt *.jsonl *.json)</translation>
    </message>
    <message>
        <source>Cells:</source>
        <translation>单元格：</translation>
    </message>
    <message>
        <source>Values</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>对数刻度</translation>
    </message>
    <message>
        <source>Normalised per unit</source>
        <translation>按单元归一化</translation>
    </message>
    <message>
        <source>Rank per unit</source>
        <translation>按单元排名</translation>
    </message>
    <message>
        <source>The unit scores on one colour scale</source>
        <translation>单元分数使用同一色标</translation>
    </message>
    <message>
        <source>log₁₀ of each score&apos;s magnitude: a few large norms no longer hide the rest (zeros are left blank)</source>
        <translation>每个分数绝对值的 log₁₀：少数大范数不再掩盖其余部分（零值留空）</translation>
    </message>
    <message>
        <source>Each layer&apos;s rank within its unit column (1 = most important)</source>
        <translation>每层在其单元列中的排名（1 = 最重要）</translation>
    </message>
    <message>
        <source>How the cells are coloured; the bars always show the layer score</source>
        <translation>单元格的着色方式；条形图始终显示层分数</translation>
    </message>
    <message>
        <source>domain rank − general rank of the layer score</source>
        <translation>层分数的领域排名 − 通用排名</translation>
    </message>
    <message>
        <source>|loss increase| when the layer is bypassed</source>
        <translation>跳过该层时的 |损失增加|</translation>
    </message>
    <message>
        <source>loss increase when the layer is bypassed</source>
        <translation>跳过该层时的损失增加</translation>
    </message>
    <message>
        <source>|Σ θ·g| over the layer&apos;s parameters</source>
        <translation>该层参数上的 |Σ θ·g|</translation>
    </message>
    <message>
        <source>Σ θ·g over the layer&apos;s parameters</source>
        <translation>该层参数上的 Σ θ·g</translation>
    </message>
    <message>
        <source>Σ |θ·g| over the layer&apos;s parameters</source>
        <translation>该层参数上的 Σ |θ·g|</translation>
    </message>
    <message>
        <source>Σ g² (Fisher) over the layer&apos;s parameters</source>
        <translation>该层参数上的 Σ g²（Fisher）</translation>
    </message>
    <message>
        <source>‖W_T − W_0‖ of the layer</source>
        <translation>该层的 ‖W_T − W_0‖</translation>
    </message>
    <message>
        <source>rank difference</source>
        <translation>排名差异</translation>
    </message>
    <message>
        <source>|Δ loss|</source>
        <translation>|Δ loss|</translation>
    </message>
    <message>
        <source>Δ loss</source>
        <translation>Δ loss</translation>
    </message>
    <message>
        <source>|Σ θ·g|</source>
        <translation>|Σ θ·g|</translation>
    </message>
    <message>
        <source>Σ θ·g</source>
        <translation>Σ θ·g</translation>
    </message>
    <message>
        <source>Σ |θ·g|</source>
        <translation>Σ |θ·g|</translation>
    </message>
    <message>
        <source>Σ g²</source>
        <translation>Σ g²</translation>
    </message>
    <message>
        <source>‖ΔW‖</source>
        <translation>‖ΔW‖</translation>
    </message>
    <message>
        <source>domain rank − general rank within the unit column</source>
        <translation>单元列内的领域排名 − 通用排名</translation>
    </message>
    <message>
        <source>|mean θ·g| over the unit&apos;s parameters</source>
        <translation>该单元参数上的 |平均 θ·g|</translation>
    </message>
    <message>
        <source>mean θ·g over the unit&apos;s parameters</source>
        <translation>该单元参数上的平均 θ·g</translation>
    </message>
    <message>
        <source>mean |θ·g| over the unit&apos;s parameters</source>
        <translation>该单元参数上的平均 |θ·g|</translation>
    </message>
    <message>
        <source>Σ g² (Fisher) over the unit&apos;s parameters</source>
        <translation>该单元参数上的 Σ g²（Fisher）</translation>
    </message>
    <message>
        <source>log₁₀ |%1|</source>
        <translation>log₁₀ |%1|</translation>
    </message>
    <message>
        <source>%1, min–max per unit</source>
        <translation>%1，按单元最小–最大归一化</translation>
    </message>
    <message>
        <source>rank of %1 in its unit (1 = most important)</source>
        <translation>%1 在其单元中的排名（1 = 最重要）</translation>
    </message>
    <message>
        <source>layer score: %1</source>
        <translation>层分数：%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Bars&lt;/b&gt;: the layer score, %1 (%2) — what “Least important” ranks, lowest first. &lt;b&gt;Cells&lt;/b&gt;: each unit&apos;s own score, %3. A bar is not the sum of its row&apos;s cells: cells are per-unit means or sums, and signed values cancel within a layer.</source>
        <translation>&lt;b&gt;条形&lt;/b&gt;：层分数，%1（%2）——“最不重要”按它排序，最低的优先。&lt;b&gt;单元格&lt;/b&gt;：每个单元自身的分数，%3。条形不是该行单元格之和：单元格是每个单元的平均值或总和，且带符号的值会在层内相互抵消。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Bars&lt;/b&gt; and cells: the layer score, %1 (%2) — what “Least important” ranks, lowest first.</source>
        <translation>&lt;b&gt;条形&lt;/b&gt;和单元格：层分数，%1（%2）——“最不重要”按它排序，最低的优先。</translation>
    </message>
    <message>
        <source>“Least important” needs the bars: none are drawn.</source>
        <translation>“最不重要”需要条形图：当前没有绘制。</translation>
    </message>
    <message>
        <source>“Least important” picks the k lowest bars: %1.</source>
        <translation>“最不重要”选择最低的 k 个条形：%1。</translation>
    </message>
    <message>
        <source>No layer scores are drawn (a calibrated view needs a domain probe).</source>
        <translation>未绘制层分数（校准视图需要领域探测）。</translation>
    </message>
    <message>
        <source>Selected layers %1: the %2 lowest by %3, as drawn.</source>
        <translation>已选择层 %1：按 %3 最低的 %2 个，与图中一致。</translation>
    </message>
    <message>
        <source>Taylor |θ|·mean|g_b| (ADEPT&apos;s code)</source>
        <translation>Taylor |θ|·mean|g_b|（ADEPT 代码所用）</translation>
    </message>
    <message>
        <source>Taylor, ADEPT&apos;s code: mean of |θ| times the mean over probe batches of |∂L_b/∂θ| per unit; the default of ADEPT&apos;s stage 2</source>
        <translation>Taylor（ADEPT 代码）：每个单元的 |θ| 均值乘以各探测批次上 |∂L_b/∂θ| 的均值；ADEPT 第 2 阶段的默认方法</translation>
    </message>
    <message>
        <source>Taylor: mean θ·∂L/∂θ per unit (signed, as ADEPT&apos;s text; q and k, v and o, up and down come out identical)</source>
        <translation>Taylor：每个单元的 θ·∂L/∂θ 均值（带符号，同 ADEPT 正文；q 与 k、v 与 o、up 与 down 得到相同的值）</translation>
    </message>
    <message>
        <source>Σ |θ|·mean|g_b| over the layer&apos;s parameters</source>
        <translation>该层参数上的 Σ |θ|·mean|g_b|</translation>
    </message>
    <message>
        <source>Σ |θ|·|g_b|</source>
        <translation>Σ |θ|·|g_b|</translation>
    </message>
    <message>
        <source>mean |θ|·mean|g_b| over the unit&apos;s parameters</source>
        <translation>该单元参数上的平均 |θ|·mean|g_b|</translation>
    </message>
</context>
<context>
    <name>gb::gui::JobQueueModel</name>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
</context>
<context>
    <name>gb::gui::ListEditor</name>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Add a %1</source>
        <translation>添加%1</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Duplicate the selected %1</source>
        <translation>复制所选%1</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>↑</source>
        <translation>↑</translation>
    </message>
    <message>
        <source>Move up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>↓</source>
        <translation>↓</translation>
    </message>
    <message>
        <source>Move down</source>
        <translation>下移</translation>
    </message>
</context>
<context>
    <name>gb::gui::MainWindow</name>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Importance</source>
        <translation>重要性</translation>
    </message>
    <message>
        <source>Grow planner</source>
        <translation>增长规划器</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Curves</source>
        <translation>曲线</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Could not open the run store %1:
%2</source>
        <translation>无法打开运行存储 %1：
%2</translation>
    </message>
    <message>
        <source>no store</source>
        <translation>无存储</translation>
    </message>
    <message numerus="yes">
        <source>%n job(s) active</source>
        <translation>
            <numerusform>%n 个作业进行中</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open workspace…</source>
        <translation>打开工作区(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;New workspace…</source>
        <translation>新建工作区(&amp;N)…</translation>
    </message>
    <message>
        <source>Open &amp;model…</source>
        <translation>打开模型(&amp;M)…</translation>
    </message>
    <message>
        <source>Open a model folder</source>
        <translation>打开模型文件夹</translation>
    </message>
    <message>
        <source>Export &amp;plot…</source>
        <translation>导出图表(&amp;P)…</translation>
    </message>
    <message>
        <source>Export &amp;table as CSV…</source>
        <translation>将表格导出为 CSV(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Launch run</source>
        <translation>启动运行(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Add plan to comparison</source>
        <translation>将方案加入对比(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Check preservation</source>
        <translation>检查保持性(&amp;C)</translation>
    </message>
    <message>
        <source>New &amp;probe…</source>
        <translation>新建探测(&amp;P)…</translation>
    </message>
    <message>
        <source>Ca&amp;ncel selected runs</source>
        <translation>取消所选运行(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Resume selected runs</source>
        <translation>恢复所选运行(&amp;R)</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>刷新(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Show %1</source>
        <translation>显示%1</translation>
    </message>
    <message>
        <source>Views</source>
        <translation>视图</translation>
    </message>
    <message>
        <source>&amp;Reset layout</source>
        <translation>重置布局(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About GrowBench</source>
        <translation>关于 GrowBench(&amp;A)</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>关于 Qt(&amp;Q)</translation>
    </message>
    <message>
        <source>GrowBench</source>
        <translation>GrowBench</translation>
    </message>
    <message>
        <source>%1 — GrowBench</source>
        <translation>%1 — GrowBench</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>The new language applies when GrowBench starts again.</source>
        <translation>新语言将在 GrowBench 重新启动后生效。</translation>
    </message>
    <message>
        <source>Export plot</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>Wrote %1.</source>
        <translation>已写入 %1。</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Export table</source>
        <translation>导出表格</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>Runs are active</source>
        <translation>有运行正在进行</translation>
    </message>
    <message numerus="yes">
        <source>%n job(s) are still running or queued. Closing cancels them cleanly: each run keeps its last checkpoint and can be resumed from the Runs view. Close anyway?</source>
        <translation>
            <numerusform>仍有 %n 个作业在运行或排队。关闭会干净地取消它们：每个运行都会保留最后一个检查点，之后可在“运行”视图中恢复。仍要关闭吗？</numerusform>
        </translation>
    </message>
    <message>
        <source>Re&amp;port of a group…</source>
        <translation>组报告(&amp;P)…</translation>
    </message>
    <message>
        <source>Experiment</source>
        <translation>实验</translation>
    </message>
    <message>
        <source>Open experiment &amp;spec…</source>
        <translation>打开实验规格(&amp;S)…</translation>
    </message>
    <message>
        <source>Open an experiment spec</source>
        <translation>打开实验规格</translation>
    </message>
    <message>
        <source>Experiment spec (*.json)</source>
        <translation>实验规格 (*.json)</translation>
    </message>
    <message>
        <source>&amp;User Guide</source>
        <translation>用户指南(&amp;U)</translation>
    </message>
    <message>
        <source>GrowBench User Guide</source>
        <translation>GrowBench 用户指南</translation>
    </message>
    <message>
        <source>Not a model folder, an experiment spec or a run store: %1</source>
        <translation>不是模型文件夹、实验规格或运行存储：%1</translation>
    </message>
    <message>
        <source>The recommended plan is in the Grow planner; the launch form&apos;s learning rate is %1 and its steps %2.</source>
        <translation>推荐的计划已在增长规划器中；启动表单的学习率为 %1，步数为 %2。</translation>
    </message>
    <message>
        <source>&amp;Suggest a plan…</source>
        <translation>建议计划(&amp;S)…</translation>
    </message>
    <message>
        <source>A search is running</source>
        <translation>搜索正在运行</translation>
    </message>
    <message>
        <source>“Suggest a plan” is still searching. Closing cancels it cleanly; started again with the same fields, it continues. Close anyway?</source>
        <translation>“建议计划”仍在搜索。关闭会干净地取消它；用相同的字段再次启动时会继续。仍要关闭吗？</translation>
    </message>
</context>
<context>
    <name>gb::gui::ModelEditor</name>
    <message>
        <source>A model folder (Hugging Face or GrowBench)</source>
        <translation>模型文件夹（Hugging Face 或 GrowBench）</translation>
    </message>
    <message>
        <source>A built-in preset, trained from scratch</source>
        <translation>内置预设，从头训练</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>tokenizer source</source>
        <translation>分词器数据源</translation>
    </message>
    <message>
        <source>Tokenizer training text (default: the first stage&apos;s data)</source>
        <translation>分词器训练文本（默认：第一阶段的数据）</translation>
    </message>
    <message>
        <source>stage %1</source>
        <translation>阶段 %1</translation>
    </message>
    <message>
        <source>stage</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Pretraining stages (in order)</source>
        <translation>预训练阶段（按顺序）</translation>
    </message>
    <message>
        <source>Choose a model folder.</source>
        <translation>请选择模型文件夹。</translation>
    </message>
</context>
<context>
    <name>gb::gui::ModelView</name>
    <message>
        <source>Could not load tokenizer.json: %1</source>
        <translation>无法加载 tokenizer.json：%1</translation>
    </message>
    <message>
        <source>Warning: the tokenizer has %1 tokens but the model&apos;s vocabulary has %2.</source>
        <translation>警告：分词器有 %1 个词元，但模型词表只有 %2 个。</translation>
    </message>
    <message>
        <source>Loading cancelled.</source>
        <translation>加载已取消。</translation>
    </message>
    <message>
        <source>Could not load the model: %1</source>
        <translation>无法加载模型：%1</translation>
    </message>
    <message>
        <source>%1 · %2 layers · hidden %3 · MLP %4 · heads %5/%6 · vocabulary %7 · %8 parameters</source>
        <translation>%1 · %2 层 · 隐藏维度 %3 · MLP %4 · 头数 %5/%6 · 词表 %7 · %8 参数</translation>
    </message>
    <message>
        <source>Loaded.</source>
        <translation>已加载。</translation>
    </message>
    <message>
        <source>Generation failed: %1</source>
        <translation>生成失败：%1</translation>
    </message>
    <message>
        <source>Open folder…</source>
        <translation>打开文件夹…</translation>
    </message>
    <message>
        <source>A Hugging Face model folder (config.json, model.safetensors, tokenizer.json) or a GrowBench checkpoint</source>
        <translation>Hugging Face 模型文件夹（config.json、model.safetensors、tokenizer.json）或 GrowBench 检查点</translation>
    </message>
    <message>
        <source>Preset:</source>
        <translation>预设：</translation>
    </message>
    <message>
        <source>Built-in base models found on this machine (shipped, or built by a run&apos;s pretrain stage and cached)</source>
        <translation>在本机找到的内置基础模型（随程序提供，或由运行的预训练阶段构建并缓存）</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新加载</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>No model open.</source>
        <translation>未打开模型。</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>Config</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>No tokenizer.</source>
        <translation>无分词器。</translation>
    </message>
    <message>
        <source>Type text to see its tokens</source>
        <translation>输入文本以查看其词元</translation>
    </message>
    <message>
        <source>Tokenizer</source>
        <translation>分词器</translation>
    </message>
    <message>
        <source>A prompt for a quick sanity check</source>
        <translation>用于快速健全性检查的提示词</translation>
    </message>
    <message>
        <source>Prompt:</source>
        <translation>提示词：</translation>
    </message>
    <message>
        <source>New tokens:</source>
        <translation>新词元数：</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Open a model folder</source>
        <translation>打开模型文件夹</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s): %1&lt;br/&gt;ids: %2</source>
        <translation>
            <numerusform>%n 个词元：%1&lt;br/&gt;ID：%2</numerusform>
        </translation>
    </message>
    <message>
        <source>(no preset built yet)</source>
        <translation>（尚未构建预设）</translation>
    </message>
    <message>
        <source>(choose a preset)</source>
        <translation>（选择预设）</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>%1 is not a model folder: config.json is missing.</source>
        <translation>%1 不是模型文件夹：缺少 config.json。</translation>
    </message>
    <message>
        <source>%1 holds only pickled PyTorch checkpoints (*.bin): GrowBench refuses them because unpickling can run code. Convert the model to safetensors first.</source>
        <translation>%1 只包含 pickle 格式的 PyTorch 检查点（*.bin）：GrowBench 拒绝加载，因为反序列化 pickle 可能执行代码。请先将模型转换为 safetensors。</translation>
    </message>
    <message>
        <source>This config.json is not supported: %1</source>
        <translation>不支持此 config.json：%1</translation>
    </message>
    <message>
        <source>Loading tokenizer…</source>
        <translation>正在加载分词器…</translation>
    </message>
    <message>
        <source>This folder has no tokenizer.json: probes, runs and generation need one.</source>
        <translation>此文件夹中没有 tokenizer.json：探测、运行和生成都需要该文件。</translation>
    </message>
    <message>
        <source>Loading the architecture…</source>
        <translation>正在加载架构…</translation>
    </message>
    <message>
        <source>Open a model first.</source>
        <translation>请先打开一个模型。</translation>
    </message>
    <message>
        <source>This model folder has no tokenizer.json.</source>
        <translation>此模型文件夹中没有 tokenizer.json。</translation>
    </message>
    <message>
        <source>Generating…</source>
        <translation>正在生成…</translation>
    </message>
    <message>
        <source>This growbench-cli has no generate command yet.</source>
        <translation>此版本的 growbench-cli 尚无 generate 命令。</translation>
    </message>
</context>
<context>
    <name>gb::gui::ParallelCoordinates</name>
    <message>
        <source>No axes: choose hyper-parameters and figures</source>
        <translation>没有坐标轴：请选择超参数和指标</translation>
    </message>
    <message>
        <source>(log)</source>
        <translation>（对数）</translation>
    </message>
    <message>
        <source> (lower is better)</source>
        <translation>（越低越好）</translation>
    </message>
    <message>
        <source> (higher is better)</source>
        <translation>（越高越好）</translation>
    </message>
    <message>
        <source>Brush: %1 … %2 (click the axis to clear)</source>
        <translation>刷选范围：%1 … %2（单击坐标轴清除）</translation>
    </message>
    <message>
        <source>Drag along the axis to filter the runs by a range</source>
        <translation>沿坐标轴拖动以按范围筛选运行</translation>
    </message>
</context>
<context>
    <name>gb::gui::PlanForm</name>
    <message>
        <source>Variant:</source>
        <translation>变体：</translation>
    </message>
    <message>
        <source>GrowBench does not know the variant “%1”: its keys are kept as JSON below.</source>
        <translation>GrowBench 不认识变体“%1”：其键以 JSON 形式保留在下方。</translation>
    </message>
    <message>
        <source>(The default depends on the other keys.)</source>
        <translation>（默认值取决于其他键。）</translation>
    </message>
    <message>
        <source>Other keys</source>
        <translation>其他键</translation>
    </message>
    <message>
        <source>Keys of this plan without a field above, as JSON</source>
        <translation>此方案中在上方没有字段的键（JSON）</translation>
    </message>
</context>
<context>
    <name>gb::gui::ReportDialog</name>
    <message>
        <source>Report of a run group</source>
        <translation>运行组报告</translation>
    </message>
    <message>
        <source>The runs one spec started together (its seeds and sweep points).</source>
        <translation>同一规格一起启动的运行（其种子和扫描点）。</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>组</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>Export to</source>
        <translation>导出到</translation>
    </message>
    <message>
        <source>Claim</source>
        <translation>论断</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>What decided it</source>
        <translation>判定依据</translation>
    </message>
    <message>
        <source>Write report</source>
        <translation>写入报告</translation>
    </message>
    <message>
        <source>Open in browser</source>
        <translation>在浏览器中打开</translation>
    </message>
    <message>
        <source>The report could not be written: %1</source>
        <translation>无法写入报告：%1</translation>
    </message>
    <message>
        <source>Written to %1</source>
        <translation>已写入 %1</translation>
    </message>
    <message>
        <source>This store has no run groups yet.</source>
        <translation>此存储中还没有运行组。</translation>
    </message>
    <message>
        <source>Export report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>HTML pages (*.html)</source>
        <translation>HTML 页面 (*.html)</translation>
    </message>
    <message>
        <source>Writing the report…</source>
        <translation>正在写入报告…</translation>
    </message>
    <message>
        <source>This group&apos;s spec states no claims: the report holds its table and curves.</source>
        <translation>此组的规格未陈述任何论断：报告包含其表格和曲线。</translation>
    </message>
</context>
<context>
    <name>gb::gui::RunManager</name>
    <message>
        <source>stage: %1</source>
        <translation>阶段：%1</translation>
    </message>
    <message>
        <source>evaluated at step %1</source>
        <translation>已在第 %1 步评估</translation>
    </message>
    <message>
        <source>checkpoint at step %1: %2</source>
        <translation>第 %1 步的检查点：%2</translation>
    </message>
    <message>
        <source>model grown</source>
        <translation>模型已扩展</translation>
    </message>
    <message>
        <source>growbench-cli crashed (exit status %1)</source>
        <translation>growbench-cli 崩溃（退出状态 %1）</translation>
    </message>
    <message>
        <source>unreadable progress line: %1</source>
        <translation>无法读取的进度行：%1</translation>
    </message>
</context>
<context>
    <name>gb::gui::RunTableModel</name>
    <message>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Trainable</source>
        <translation>可训练</translation>
    </message>
    <message>
        <source>Forgetting</source>
        <translation>遗忘</translation>
    </message>
    <message>
        <source>Learning</source>
        <translation>学习</translation>
    </message>
    <message>
        <source>OP</source>
        <translation>OP</translation>
    </message>
    <message>
        <source>BWT</source>
        <translation>BWT</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Trainable parameters as a share of the base model&apos;s parameters</source>
        <translation>可训练参数占基础模型参数的比例</translation>
    </message>
    <message>
        <source>Relative increase of the original-domain perplexity from step 0 to the latest evaluation (lower is better)</source>
        <translation>原始领域困惑度从第 0 步到最近一次评估的相对增幅（越低越好）</translation>
    </message>
    <message>
        <source>Relative decrease of the new-domain perplexity from step 0 to the latest evaluation (higher is better)</source>
        <translation>新领域困惑度从第 0 步到最近一次评估的相对降幅（越高越好）</translation>
    </message>
    <message>
        <source>Overall performance: mean accuracy on all tasks after the last task</source>
        <translation>整体性能：最后一个任务之后在所有任务上的平均准确率</translation>
    </message>
    <message>
        <source>Backward transfer: mean change of earlier tasks&apos; accuracy after the last task (negative = forgetting)</source>
        <translation>反向迁移：最后一个任务之后先前任务准确率的平均变化（负值 = 遗忘）</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 tok/s</source>
        <translation>%1 词元/秒</translation>
    </message>
    <message>
        <source>ETA %1</source>
        <translation>预计剩余 %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1 trainable, %2 added</source>
        <translation>可训练 %1，新增 %2</translation>
    </message>
    <message>
        <source>Processes</source>
        <translation>进程</translation>
    </message>
    <message>
        <source>Data-parallel worker processes of the run and their collective backend (gloo on CPU, nccl on CUDA); 1 = one process</source>
        <translation>该运行的数据并行工作进程及其集合通信后端（CPU 上为 gloo，CUDA 上为 nccl）；1 = 单进程</translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <source>%1 (step %2)</source>
        <translation>%1（第 %2 步）</translation>
    </message>
    <message>
        <source>No figure: the run has no evaluation after step 0 (%1)</source>
        <translation>无指标：该运行在第 0 步之后没有评估（%1）</translation>
    </message>
    <message>
        <source>Original-domain perplexity: %1 at step 0, %2 at step %3</source>
        <translation>原始领域困惑度：第 0 步为 %1，第 %3 步为 %2</translation>
    </message>
    <message>
        <source>New-domain perplexity: %1 at step 0, %2 at step %3</source>
        <translation>新领域困惑度：第 0 步为 %1，第 %3 步为 %2</translation>
    </message>
    <message>
        <source>Partial: the run is %1; step %2 of %3</source>
        <translation>不完整：该运行状态为 %1；第 %2 步（共 %3 步）</translation>
    </message>
</context>
<context>
    <name>gb::gui::RunsView</name>
    <message>
        <source>Job “%1” failed: %2</source>
        <translation>作业“%1”失败：%2</translation>
    </message>
    <message>
        <source>Job “%1” cancelled.</source>
        <translation>作业“%1”已取消。</translation>
    </message>
    <message>
        <source>Job “%1” finished (exit code %2).</source>
        <translation>作业“%1”已结束（退出码 %2）。</translation>
    </message>
    <message>
        <source>none: open one in the Model view</source>
        <translation>无：请在“模型”视图中打开一个</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>New-domain data:</source>
        <translation>新领域数据：</translation>
    </message>
    <message>
        <source>training text (file or folder)</source>
        <translation>训练文本（文件或文件夹）</translation>
    </message>
    <message>
        <source>The new-domain training data: text, JSONL or fortunes</source>
        <translation>新领域训练数据：文本、JSONL 或 fortunes</translation>
    </message>
    <message>
        <source>New-domain eval:</source>
        <translation>新领域评估：</translation>
    </message>
    <message>
        <source>optional: else 10 % held out of the training data</source>
        <translation>可选：否则从训练数据中留出 10%</translation>
    </message>
    <message>
        <source>Measures learning (new-domain perplexity)</source>
        <translation>衡量学习效果（新领域困惑度）</translation>
    </message>
    <message>
        <source>Original-domain eval:</source>
        <translation>原始领域评估：</translation>
    </message>
    <message>
        <source>original-domain text</source>
        <translation>原始领域文本</translation>
    </message>
    <message>
        <source>Measures forgetting (original-domain perplexity)</source>
        <translation>衡量遗忘程度（原始领域困惑度）</translation>
    </message>
    <message>
        <source>Plans:</source>
        <translation>方案：</translation>
    </message>
    <message>
        <source>Steps:</source>
        <translation>步数：</translation>
    </message>
    <message>
        <source>Optimizer steps</source>
        <translation>优化器步数</translation>
    </message>
    <message>
        <source>Peak learning rate (cosine schedule with warm-up)</source>
        <translation>峰值学习率（带预热的余弦调度）</translation>
    </message>
    <message>
        <source>LR:</source>
        <translation>学习率：</translation>
    </message>
    <message>
        <source>Batch:</source>
        <translation>批大小：</translation>
    </message>
    <message>
        <source>Sequences per micro-batch</source>
        <translation>每个微批次的序列数</translation>
    </message>
    <message>
        <source>Seq len:</source>
        <translation>序列长度：</translation>
    </message>
    <message>
        <source>Tokens per sequence</source>
        <translation>每个序列的词元数</translation>
    </message>
    <message>
        <source>Device:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation>随机种子：</translation>
    </message>
    <message>
        <source>Seed of data order and initialisation</source>
        <translation>数据顺序和初始化的随机种子</translation>
    </message>
    <message>
        <source>Eval every:</source>
        <translation>评估间隔：</translation>
    </message>
    <message>
        <source>Steps between evaluations (step 0 and the last step are always evaluated)</source>
        <translation>两次评估之间的步数（第 0 步和最后一步总会评估）</translation>
    </message>
    <message>
        <source>Eval tokens:</source>
        <translation>评估词元数：</translation>
    </message>
    <message>
        <source>Token budget of each evaluation set</source>
        <translation>每个评估集的词元预算</translation>
    </message>
    <message>
        <source>Write the experiment spec to the workspace and start growbench-cli run</source>
        <translation>将实验规格写入工作区并启动 growbench-cli run</translation>
    </message>
    <message>
        <source>Run a spec file…</source>
        <translation>运行规格文件…</translation>
    </message>
    <message>
        <source>Launch an existing experiment spec (JSON), e.g. resources/experiments/quickstart.json</source>
        <translation>启动已有的实验规格（JSON），例如 resources/experiments/quickstart.json</translation>
    </message>
    <message>
        <source>Filter runs</source>
        <translation>筛选运行</translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <source>Cancel run</source>
        <translation>取消运行</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Show curves</source>
        <translation>显示曲线</translation>
    </message>
    <message>
        <source>Job queue</source>
        <translation>作业队列</translation>
    </message>
    <message>
        <source>Log: select a run</source>
        <translation>日志：请选择一个运行</translation>
    </message>
    <message>
        <source>Experiment spec</source>
        <translation>实验规格</translation>
    </message>
    <message>
        <source>Experiment spec (*.json)</source>
        <translation>实验规格 (*.json)</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel job</source>
        <translation>取消作业</translation>
    </message>
    <message>
        <source>Copy command line</source>
        <translation>复制命令行</translation>
    </message>
    <message>
        <source>Command line copied: run it in a terminal to keep it independent of the GUI.</source>
        <translation>命令行已复制：在终端中运行它，可使其独立于图形界面。</translation>
    </message>
    <message>
        <source>Remove finished jobs</source>
        <translation>移除已结束的作业</translation>
    </message>
    <message>
        <source>the Grow planner&apos;s current plan (queue plans there to compare several)</source>
        <translation>增长规划器中的当前方案（在那里将多个方案加入队列以进行对比）</translation>
    </message>
    <message numerus="yes">
        <source>%n queued plan(s): %1</source>
        <translation>
            <numerusform>%n 个排队的方案：%1</numerusform>
        </translation>
    </message>
    <message>
        <source>Open a model in the Model view first.</source>
        <translation>请先在“模型”视图中打开一个模型。</translation>
    </message>
    <message>
        <source>The model folder has no tokenizer.json.</source>
        <translation>模型文件夹中没有 tokenizer.json。</translation>
    </message>
    <message>
        <source>Choose the new-domain training data.</source>
        <translation>请选择新领域的训练数据。</translation>
    </message>
    <message>
        <source>No plan: build one in the Grow planner.</source>
        <translation>没有方案：请在增长规划器中创建一个。</translation>
    </message>
    <message>
        <source>The spec is not valid: %1</source>
        <translation>规格无效：%1</translation>
    </message>
    <message>
        <source>Open a workspace first.</source>
        <translation>请先打开一个工作区。</translation>
    </message>
    <message>
        <source>Cannot launch</source>
        <translation>无法启动</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Launched %1 (spec %2).</source>
        <translation>已启动 %1（规格 %2）。</translation>
    </message>
    <message>
        <source>Cancelling run %1…</source>
        <translation>正在取消运行 %1…</translation>
    </message>
    <message>
        <source>Run %1 runs on %2: cancel it there.</source>
        <translation>运行 %1 在 %2 上进行：请在那里取消。</translation>
    </message>
    <message>
        <source>Run %1 was started outside this window (process %2). Ask it to stop? It is cancelled cleanly and can be resumed.</source>
        <translation>运行 %1 是在此窗口之外启动的（进程 %2）。要请求它停止吗？它会被干净地取消，之后可以恢复。</translation>
    </message>
    <message>
        <source>Could not signal process %1.</source>
        <translation>无法向进程 %1 发送信号。</translation>
    </message>
    <message>
        <source>Asked process %1 to cancel run %2.</source>
        <translation>已请求进程 %1 取消运行 %2。</translation>
    </message>
    <message>
        <source>Only interrupted, cancelled or failed runs can be resumed.</source>
        <translation>只有已中断、已取消或失败的运行才能恢复。</translation>
    </message>
    <message>
        <source>Run %1 is already queued or running.</source>
        <translation>运行 %1 已在排队或运行中。</translation>
    </message>
    <message>
        <source>resume run %1</source>
        <translation>恢复运行 %1</translation>
    </message>
    <message>
        <source>Resuming run %1…</source>
        <translation>正在恢复运行 %1…</translation>
    </message>
    <message>
        <source>Log of run %1: %2</source>
        <translation>运行 %1 的日志：%2</translation>
    </message>
    <message>
        <source>Log of run %1</source>
        <translation>运行 %1 的日志</translation>
    </message>
    <message>
        <source>Processes:</source>
        <translation>进程数：</translation>
    </message>
    <message>
        <source>Data-parallel worker processes on this machine (growbench-cli run --nproc-per-node): each trains on its share of every batch, with the same numbers as one process; the batch needs at least one sequence per process</source>
        <translation>本机上的数据并行工作进程（growbench-cli run --nproc-per-node）：每个进程训练每个批次中属于自己的部分，结果与单进程相同；批次中每个进程至少需要一个序列</translation>
    </message>
    <message>
        <source>This build has no distributed support (LibTorch&apos;s c10d with Gloo; install libgloo-dev and rebuild)</source>
        <translation>此构建不支持分布式运行（需要 LibTorch 的 c10d 与 Gloo；请安装 libgloo-dev 并重新构建）</translation>
    </message>
    <message numerus="yes">
        <source>The spec expands to %n run(s) (plans × sweep points × seeds)</source>
        <translation>
            <numerusform>该规格展开为 %n 个运行（方案 × 扫描点 × 种子）</numerusform>
        </translation>
    </message>
    <message>
        <source>File…</source>
        <translation>文件…</translation>
    </message>
    <message>
        <source>Choose a file (files without an extension are shown too)</source>
        <translation>选择文件（也会显示无扩展名的文件）</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>文件夹…</translation>
    </message>
    <message>
        <source>Choose a folder (e.g. a folder of fortune files)</source>
        <translation>选择文件夹（例如 fortune 文件所在的文件夹）</translation>
    </message>
    <message>
        <source>Edit as experiment…</source>
        <translation>作为实验编辑…</translation>
    </message>
    <message>
        <source>Open this form&apos;s spec in the experiment editor: replay, held-out test sets, tasks, task sequences, probes, checkpoints and every other key of a spec</source>
        <translation>在实验编辑器中打开此表单的规格：回放、留出测试集、任务、任务序列、探测、检查点以及规格的所有其他键</translation>
    </message>
    <message>
        <source>Open spec in the experiment editor</source>
        <translation>在实验编辑器中打开规格</translation>
    </message>
    <message>
        <source>The new-domain training data</source>
        <translation>新领域训练数据</translation>
    </message>
    <message>
        <source>The new-domain evaluation data</source>
        <translation>新领域评估数据</translation>
    </message>
    <message>
        <source>The original-domain evaluation data</source>
        <translation>原始领域评估数据</translation>
    </message>
    <message>
        <source>%1 does not exist: %2</source>
        <translation>%1 不存在：%2</translation>
    </message>
    <message>
        <source>Continue an interrupted, cancelled or failed run from its newest valid checkpoint</source>
        <translation>从最新的有效检查点继续被中断、取消或失败的运行</translation>
    </message>
    <message>
        <source>Start again</source>
        <translation>重新开始</translation>
    </message>
    <message>
        <source>Start a stopped run that has no checkpoint (killed before its first one, or queued by a worker that ended) from the beginning</source>
        <translation>从头开始一个没有检查点的已停止运行（在第一个检查点之前被终止，或由已结束的工作进程排队）</translation>
    </message>
    <message>
        <source>Only interrupted, cancelled or failed runs can be started again.</source>
        <translation>只有被中断、取消或失败的运行才能重新开始。</translation>
    </message>
    <message>
        <source>Run %1 has no checkpoint to resume from: start it again (Start again, or its context menu).</source>
        <translation>运行 %1 没有可恢复的检查点：请重新开始它（“重新开始”或其上下文菜单）。</translation>
    </message>
    <message>
        <source>Run %1 has a checkpoint: resume it instead.</source>
        <translation>运行 %1 有检查点：请改为恢复它。</translation>
    </message>
    <message>
        <source>start run %1 again</source>
        <translation>重新开始运行 %1</translation>
    </message>
    <message>
        <source>Starting run %1 again from the beginning…</source>
        <translation>正在从头重新开始运行 %1…</translation>
    </message>
    <message>
        <source>Export run %1</source>
        <translation>导出运行 %1</translation>
    </message>
    <message>
        <source>Model as a Hugging Face folder…</source>
        <translation>模型为 Hugging Face 文件夹…</translation>
    </message>
    <message>
        <source>LoRA adapter as a PEFT folder…</source>
        <translation>LoRA 适配器为 PEFT 文件夹…</translation>
    </message>
    <message>
        <source>Metrics as TensorBoard events…</source>
        <translation>指标为 TensorBoard 事件文件…</translation>
    </message>
    <message>
        <source>Metrics as CSV…</source>
        <translation>指标为 CSV…</translation>
    </message>
    <message>
        <source>Metrics as JSON lines…</source>
        <translation>指标为 JSON 行…</translation>
    </message>
    <message>
        <source>Run %1 is not in this store.</source>
        <translation>运行 %1 不在此存储中。</translation>
    </message>
    <message>
        <source>Run %1 has no checkpoint: the model of a run is exported from its latest checkpoint.</source>
        <translation>运行 %1 没有检查点：运行的模型从其最新检查点导出。</translation>
    </message>
    <message>
        <source>Only LoRA runs can be written as a PEFT adapter (run %1 is %2).</source>
        <translation>只有 LoRA 运行可以写为 PEFT 适配器（运行 %1 是 %2）。</translation>
    </message>
    <message>
        <source>of no known variant</source>
        <translation>未知变体</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>JSON lines (*.jsonl)</source>
        <translation>JSON 行 (*.jsonl)</translation>
    </message>
    <message>
        <source>Export run %1: the folder to write</source>
        <translation>导出运行 %1：要写入的文件夹</translation>
    </message>
    <message>
        <source>Export the metrics of run %1</source>
        <translation>导出运行 %1 的指标</translation>
    </message>
    <message>
        <source>Replace folder</source>
        <translation>替换文件夹</translation>
    </message>
    <message>
        <source>%1 exists and is not empty. Replace it as a whole with the export?</source>
        <translation>%1 已存在且不为空。用导出内容整体替换它吗？</translation>
    </message>
    <message>
        <source>An export is still running: wait for it to finish.</source>
        <translation>仍有导出在运行：请等待其完成。</translation>
    </message>
    <message>
        <source>Run %1 exported to %2.</source>
        <translation>运行 %1 已导出到 %2。</translation>
    </message>
    <message>
        <source>Export of run %1 failed: %2</source>
        <translation>运行 %1 导出失败：%2</translation>
    </message>
    <message>
        <source>Exporting run %1 to %2…</source>
        <translation>正在将运行 %1 导出到 %2…</translation>
    </message>
    <message>
        <source>Runs at once:</source>
        <translation>同时运行：</translation>
    </message>
    <message>
        <source>Runs of the experiment (plans, sweep points, seeds) that train side by side, each in its own worker process (growbench-cli run --jobs): one per core is fastest on a CPU; each run&apos;s numbers are those of the run alone</source>
        <translation>实验中并行训练的运行（计划、扫描点、随机种子），每个运行在自己的工作进程中（growbench-cli run --jobs）：在 CPU 上每个核心一个最快；每个运行的数值与单独运行时相同</translation>
    </message>
</context>
<context>
    <name>gb::gui::SettingsDialog</name>
    <message>
        <source>System language</source>
        <translation>系统语言</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Device of new runs: cpu, cuda or cuda:N</source>
        <translation>新运行使用的设备：cpu、cuda 或 cuda:N</translation>
    </message>
    <message>
        <source>Default device:</source>
        <translation>默认设备：</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Workspace at start:</source>
        <translation>启动时的工作区：</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <source>The colours follow the system theme (light or dark); plots follow it too.</source>
        <translation>颜色跟随系统主题（浅色或深色）；图表也随之变化。</translation>
    </message>
    <message>
        <source>Theme:</source>
        <translation>主题：</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
</context>
<context>
    <name>gb::gui::SourceEditor</name>
    <message>
        <source>(required)</source>
        <translation>（必填）</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Text corpus</source>
        <translation>文本语料</translation>
    </message>
    <message>
        <source>QA JSONL</source>
        <translation>问答 JSONL</translation>
    </message>
    <message>
        <source>Biography</source>
        <translation>传记</translation>
    </message>
    <message>
        <source>Text corpus: a file or folder of text, JSONL or fortunes; QA JSONL: question and answer per line; Biography: a part of the synthetic biography benchmark</source>
        <translation>文本语料：文本、JSONL 或 fortunes 文件或文件夹；问答 JSONL：每行一个问题和答案；传记：合成传记基准的一部分</translation>
    </message>
    <message>
        <source>A file or a folder (text, JSONL, fortunes, QA JSONL)</source>
        <translation>文件或文件夹（文本、JSONL、fortunes、问答 JSONL）</translation>
    </message>
    <message>
        <source>Options</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>Format, split and limits of this source</source>
        <translation>此数据源的格式、划分和限制</translation>
    </message>
    <message>
        <source>Required: choose a data source.</source>
        <translation>必填：请选择数据源。</translation>
    </message>
    <message>
        <source>Give a path.</source>
        <translation>请给出路径。</translation>
    </message>
</context>
<context>
    <name>gb::gui::SpecDiffModel</name>
    <message>
        <source>(absent)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>键</translation>
    </message>
</context>
<context>
    <name>gb::gui::SpecField</name>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>(required)</source>
        <translation>（必填）</translation>
    </message>
    <message>
        <source>(not set)</source>
        <translation>（未设置）</translation>
    </message>
    <message>
        <source>(default: %1)</source>
        <translation>（默认：%1）</translation>
    </message>
    <message>
        <source>File…</source>
        <translation>文件…</translation>
    </message>
    <message>
        <source>Choose a file (files without an extension are shown too)</source>
        <translation>选择文件（也会显示无扩展名的文件）</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>文件夹…</translation>
    </message>
    <message>
        <source>Choose a folder (a model folder, a folder of fortune files)</source>
        <translation>选择文件夹（模型文件夹、fortune 文件所在的文件夹）</translation>
    </message>
    <message>
        <source>“all”, a list such as 0-3, 7, or a policy as JSON, e.g. {&quot;policy&quot;: &quot;least-important&quot;, &quot;k&quot;: 2, &quot;score&quot;: &quot;masking&quot;}</source>
        <translation>“all”、类似 0-3, 7 的列表，或 JSON 形式的策略，例如 {&quot;policy&quot;: &quot;least-important&quot;, &quot;k&quot;: 2, &quot;score&quot;: &quot;masking&quot;}</translation>
    </message>
    <message>
        <source>Comma-separated; allowed: %1</source>
        <translation>以逗号分隔；允许：%1</translation>
    </message>
    <message>
        <source>Key: %1. Bold: set in the spec; otherwise the default applies.</source>
        <translation>键：%1。粗体：已在规格中设置；否则使用默认值。</translation>
    </message>
    <message>
        <source>Expected a whole number.</source>
        <translation>应为整数。</translation>
    </message>
    <message>
        <source>Expected a number.</source>
        <translation>应为数字。</translation>
    </message>
    <message>
        <source>Not valid JSON.</source>
        <translation>不是有效的 JSON。</translation>
    </message>
    <message>
        <source>Expected a JSON object {…}.</source>
        <translation>应为 JSON 对象 {…}。</translation>
    </message>
    <message>
        <source>Expected “all”, a list such as 0-3, 7, or a JSON policy object.</source>
        <translation>应为“all”、类似 0-3, 7 的列表，或 JSON 策略对象。</translation>
    </message>
    <message>
        <source>Unknown: %1 (allowed: %2)</source>
        <translation>未知：%1（允许：%2）</translation>
    </message>
    <message>
        <source>Required.</source>
        <translation>必填。</translation>
    </message>
    <message>
        <source>Must be in %1%2, %3%4.</source>
        <translation>必须在 %1%2, %3%4 范围内。</translation>
    </message>
</context>
<context>
    <name>gb::gui::SuggestDialog</name>
    <message>
        <source>Choose the model: open one in the Model view.</source>
        <translation>请选择模型：在“模型”视图中打开一个。</translation>
    </message>
    <message>
        <source>The model folder has no config.json: %1</source>
        <translation>模型文件夹中没有 config.json：%1</translation>
    </message>
    <message>
        <source>Choose the new-domain data (a file or a folder).</source>
        <translation>请选择新领域数据（文件或文件夹）。</translation>
    </message>
    <message>
        <source>The new-domain data does not exist: %1</source>
        <translation>新领域数据不存在：%1</translation>
    </message>
    <message>
        <source>Choose the original-domain data: the forgetting is measured on it.</source>
        <translation>请选择原始领域数据：遗忘在其上衡量。</translation>
    </message>
    <message>
        <source>The original-domain data does not exist: %1</source>
        <translation>原始领域数据不存在：%1</translation>
    </message>
    <message>
        <source>The forgetting budget must be a percentage such as 5 % (found “%1”).</source>
        <translation>遗忘预算必须是百分比，例如 5 %（当前为“%1”）。</translation>
    </message>
    <message>
        <source>The parameter budget must be a percentage such as 10 % (found “%1”).</source>
        <translation>参数预算必须是百分比，例如 10 %（当前为“%1”）。</translation>
    </message>
    <message>
        <source>The time budget must be a duration such as 30m, 90s or 1.5h (found “%1”).</source>
        <translation>时间预算必须是时长，例如 30m、90s 或 1.5h（当前为“%1”）。</translation>
    </message>
    <message>
        <source>The steps must be at least 1.</source>
        <translation>步数至少为 1。</translation>
    </message>
    <message>
        <source>Open a workspace first: the search&apos;s runs go to its store.</source>
        <translation>请先打开一个工作区：搜索的运行会写入其存储。</translation>
    </message>
    <message>
        <source>No file for the search&apos;s result.</source>
        <translation>没有用于搜索结果的文件。</translation>
    </message>
    <message>
        <source>The result is not a JSON object.</source>
        <translation>结果不是 JSON 对象。</translation>
    </message>
    <message>
        <source>The result has no recommendation.</source>
        <translation>结果中没有推荐。</translation>
    </message>
    <message>
        <source>The recommendation has no plan.</source>
        <translation>推荐中没有计划。</translation>
    </message>
    <message>
        <source>The recommendation has no learning rate.</source>
        <translation>推荐中没有学习率。</translation>
    </message>
    <message>
        <source>Suggest a plan</source>
        <translation>建议计划</translation>
    </message>
    <message>
        <source>A budgeted search over every variant, layer policy, size and a rate grid: short pilot runs in one run group of the store, successive halving on validation data, and one recommended plan with its learning rate (docs/suggest.md).</source>
        <translation>在所有变体、层选择策略、规模和一组学习率上进行有预算的搜索：在存储的一个运行组中做简短的试跑，在验证数据上逐次减半，最终给出一个推荐计划及其学习率（docs/suggest.md）。</translation>
    </message>
    <message>
        <source>File…</source>
        <translation>文件…</translation>
    </message>
    <message>
        <source>Choose a file (files without an extension are shown too)</source>
        <translation>选择文件（也会显示没有扩展名的文件）</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>文件夹…</translation>
    </message>
    <message>
        <source>Choose a folder</source>
        <translation>选择文件夹</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>a model folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <source>The base model (the one open in the Model view)</source>
        <translation>基础模型（“模型”视图中打开的模型）</translation>
    </message>
    <message>
        <source>New-domain data:</source>
        <translation>新领域数据：</translation>
    </message>
    <message>
        <source>new-domain text (file or folder)</source>
        <translation>新领域文本（文件或文件夹）</translation>
    </message>
    <message>
        <source>Split at the document level into training, validation and test parts</source>
        <translation>按文档划分为训练、验证和测试部分</translation>
    </message>
    <message>
        <source>Original-domain data:</source>
        <translation>原始领域数据：</translation>
    </message>
    <message>
        <source>original-domain text (file or folder)</source>
        <translation>原始领域文本（文件或文件夹）</translation>
    </message>
    <message>
        <source>The forgetting is measured on it (validation and test parts)</source>
        <translation>在其上衡量遗忘（验证和测试部分）</translation>
    </message>
    <message>
        <source>text (paragraphs)</source>
        <translation>文本（段落）</translation>
    </message>
    <message>
        <source>fortunes</source>
        <translation>fortunes</translation>
    </message>
    <message>
        <source>JSONL</source>
        <translation>JSONL</translation>
    </message>
    <message>
        <source>The corpus format of both data sets</source>
        <translation>两个数据集的语料格式</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <source>The most the original-domain validation perplexity may rise, in percent (5 %: at most 5 % above the base model&apos;s)</source>
        <translation>原始领域验证困惑度最多允许上升的百分比（5 %：最多比基础模型高 5 %）</translation>
    </message>
    <message>
        <source>Forgetting budget:</source>
        <translation>遗忘预算：</translation>
    </message>
    <message>
        <source>The most parameters a plan may add, in percent of the base model</source>
        <translation>一个计划最多可增加的参数，占基础模型的百分比</translation>
    </message>
    <message>
        <source>Parameter budget:</source>
        <translation>参数预算：</translation>
    </message>
    <message>
        <source>How long the search may take: 30m, 90s, 1.5h or seconds. It affords as many candidates as it can and ends within a few seconds of the budget.</source>
        <translation>搜索可用的时长：30m、90s、1.5h 或秒数。它会尽量多地尝试候选，并在预算用完后几秒内结束。</translation>
    </message>
    <message>
        <source>Time budget:</source>
        <translation>时间预算：</translation>
    </message>
    <message>
        <source>The full length of a run; the halving&apos;s rungs divide it</source>
        <translation>一次运行的完整长度；逐次减半的各级在其中划分</translation>
    </message>
    <message>
        <source>Steps:</source>
        <translation>步数：</translation>
    </message>
    <message>
        <source>as many as the time affords</source>
        <translation>时间允许的数量</translation>
    </message>
    <message>
        <source>At most this many candidate plans</source>
        <translation>最多这么多个候选计划</translation>
    </message>
    <message>
        <source>Candidates:</source>
        <translation>候选：</translation>
    </message>
    <message>
        <source>Run store:</source>
        <translation>运行存储：</translation>
    </message>
    <message>
        <source>The command the search runs</source>
        <translation>搜索运行的命令</translation>
    </message>
    <message>
        <source>Command:</source>
        <translation>命令：</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>Messages of growbench-cli</source>
        <translation>growbench-cli 的消息</translation>
    </message>
    <message>
        <source>Recommendation</source>
        <translation>推荐</translation>
    </message>
    <message>
        <source>The recommended plan as JSON (docs/plans.md)</source>
        <translation>推荐计划的 JSON（docs/plans.md）</translation>
    </message>
    <message>
        <source>Start search</source>
        <translation>开始搜索</translation>
    </message>
    <message>
        <source>Run the search; started again with the same fields, a cancelled search continues</source>
        <translation>运行搜索；用相同的字段再次启动时，已取消的搜索会继续</translation>
    </message>
    <message>
        <source>Cancel search</source>
        <translation>取消搜索</translation>
    </message>
    <message>
        <source>Stop the search cleanly; its runs stay in the store and it continues when started again with the same fields</source>
        <translation>干净地停止搜索；其运行保留在存储中，用相同的字段再次启动时会继续</translation>
    </message>
    <message>
        <source>Hide this window; a running search goes on</source>
        <translation>隐藏此窗口；正在运行的搜索会继续</translation>
    </message>
    <message>
        <source>none: open a workspace</source>
        <translation>无：请打开一个工作区</translation>
    </message>
    <message>
        <source>– (%1)</source>
        <translation>–（%1）</translation>
    </message>
    <message>
        <source>Continue search</source>
        <translation>继续搜索</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message>
        <source>Cancelling: the current run stops at its next step…</source>
        <translation>正在取消：当前运行会在下一步停止…</translation>
    </message>
    <message>
        <source>Elapsed %1 of %2 · at most %3 left</source>
        <translation>已用 %1，共 %2 · 最多剩余 %3</translation>
    </message>
    <message>
        <source>Elapsed %1 of %2 · the time is up: the search ends its current run</source>
        <translation>已用 %1，共 %2 · 时间已到：搜索正在结束当前运行</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>step %1 of %2</source>
        <translation>第 %1 步，共 %2 步</translation>
    </message>
    <message>
        <source>%1 left</source>
        <translation>剩余 %1</translation>
    </message>
    <message>
        <source>Preparing: %1</source>
        <translation>准备中：%1</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) started</source>
        <translation>
            <numerusform>已启动 %n 个运行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n ended</source>
        <translation>
            <numerusform>已结束 %n 个</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n evaluation(s)</source>
        <translation>
            <numerusform>%n 次评估</numerusform>
        </translation>
    </message>
    <message>
        <source>Took %1 (time budget %2)</source>
        <translation>用时 %1（时间预算 %2）</translation>
    </message>
    <message>
        <source>Cancelled. The runs so far stay in the store: start the search again with the same fields to continue it.</source>
        <translation>已取消。目前的运行保留在存储中：用相同的字段再次启动搜索即可继续。</translation>
    </message>
    <message>
        <source>growbench-cli crashed: %1</source>
        <translation>growbench-cli 崩溃：%1</translation>
    </message>
    <message>
        <source>The search failed (exit code %1): %2</source>
        <translation>搜索失败（退出码 %1）：%2</translation>
    </message>
    <message>
        <source>The search ended but its result %1 could not be read: %2</source>
        <translation>搜索已结束，但无法读取其结果 %1：%2</translation>
    </message>
    <message>
        <source>The search&apos;s result %1 could not be read: %2</source>
        <translation>无法读取搜索结果 %1：%2</translation>
    </message>
    <message>
        <source>&lt;b&gt;Recommended: %1&lt;/b&gt; (variant %2), learning rate %3, at step %4 of %5.</source>
        <translation>&lt;b&gt;推荐：%1&lt;/b&gt;（变体 %2），学习率 %3，第 %4 步（共 %5 步）。</translation>
    </message>
    <message>
        <source>Validation: new-domain loss %1, original-domain perplexity %2.</source>
        <translation>验证：新领域损失 %1，原始领域困惑度 %2。</translation>
    </message>
    <message>
        <source>Test: new-domain loss %1, original-domain perplexity %2.</source>
        <translation>测试：新领域损失 %1，原始领域困惑度 %2。</translation>
    </message>
    <message>
        <source>Within the forgetting budget of %1 % on the validation data.</source>
        <translation>在验证数据上处于 %1 % 的遗忘预算之内。</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#c62828&apos;&gt;No candidate stays within the forgetting budget of %1 %: this is the one that forgets least.&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#c62828&apos;&gt;没有候选处于 %1 % 的遗忘预算之内：这是遗忘最少的一个。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>The time ran out before the full length: chosen at step %1 of %2.</source>
        <translation>在达到完整长度之前时间已用完：在第 %1 步（共 %2 步）选出。</translation>
    </message>
    <message numerus="yes">
        <source>%n candidate(s) in group %1, %2 spent.</source>
        <translation>
            <numerusform>组 %1 中共 %n 个候选，用时 %2。</numerusform>
        </translation>
    </message>
    <message>
        <source>The search is done.</source>
        <translation>搜索完成。</translation>
    </message>
</context>
<context>
    <name>gb::gui::SweepEditor</name>
    <message>
        <source>Seeds:</source>
        <translation>种子：</translation>
    </message>
    <message>
        <source>e.g. 0, 1, 2 (empty: one run with the seed above)</source>
        <translation>例如 0, 1, 2（为空：使用上面的种子运行一次）</translation>
    </message>
    <message>
        <source>One run per seed: the seed sets the data order and the initial values of new parameters; the base model and the data splits stay the same</source>
        <translation>每个种子一次运行：种子决定数据顺序和新参数的初始值；基础模型和数据划分保持不变</translation>
    </message>
    <message>
        <source>Sweep:</source>
        <translation>扫描：</translation>
    </message>
    <message>
        <source>grid</source>
        <translation>网格</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>Grid: every combination of the values. Random: N samples, each value drawn from its list or range</source>
        <translation>网格：所有取值组合。随机：N 个样本，每个值从其列表或范围中抽取</translation>
    </message>
    <message>
        <source>samples: </source>
        <translation>样本数：</translation>
    </message>
    <message>
        <source>Add key</source>
        <translation>添加键</translation>
    </message>
    <message>
        <source>Sweep one more hyper-parameter</source>
        <translation>再扫描一个超参数</translation>
    </message>
    <message>
        <source>Remove key</source>
        <translation>移除键</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>Values</source>
        <translation>取值</translation>
    </message>
    <message>
        <source>training setting %1</source>
        <translation>训练设置 %1</translation>
    </message>
    <message>
        <source>share of original-domain replay in each batch (plan key)</source>
        <translation>每个批次中原始领域回放的比例（方案键）</translation>
    </message>
    <message>
        <source>EWC setting %1 (plan key)</source>
        <translation>EWC 设置 %1（方案键）</translation>
    </message>
    <message>
        <source>%1 parameter %2</source>
        <translation>%1 参数 %2</translation>
    </message>
    <message>
        <source>a plan parameter by its schema name</source>
        <translation>按模式名称指定的方案参数</translation>
    </message>
    <message>
        <source>values, e.g. 1e-4, 3e-4, 1e-3 (random: log_uniform(1e-5, 1e-3))</source>
        <translation>取值，例如 1e-4, 3e-4, 1e-3（随机：log_uniform(1e-5, 1e-3)）</translation>
    </message>
    <message>
        <source>%1: ranges need the random sweep mode</source>
        <translation>%1：范围需要随机扫描模式</translation>
    </message>
    <message>
        <source>%1: expected %2(low, high) with numbers, low ≤ high</source>
        <translation>%1：应为 %2(low, high)，均为数字且 low ≤ high</translation>
    </message>
    <message>
        <source>%1: a log-uniform range needs low &gt; 0</source>
        <translation>%1：对数均匀范围需要 low &gt; 0</translation>
    </message>
    <message>
        <source>%1: give at least one value</source>
        <translation>%1：请至少给出一个值</translation>
    </message>
    <message>
        <source>%1: “%2” is not a number</source>
        <translation>%1：“%2”不是数字</translation>
    </message>
    <message>
        <source>%1: “%2” is not a whole number</source>
        <translation>%1：“%2”不是整数</translation>
    </message>
    <message>
        <source>%1: %2 is outside %3</source>
        <translation>%1：%2 超出 %3</translation>
    </message>
    <message>
        <source>%1: expected true or false, found “%2”</source>
        <translation>%1：应为 true 或 false，实际为“%2”</translation>
    </message>
    <message>
        <source>%1: “%2” is not one of %3</source>
        <translation>%1：“%2”不是 %3 之一</translation>
    </message>
    <message>
        <source>%1: %2 appears twice</source>
        <translation>%1：%2 出现了两次</translation>
    </message>
    <message>
        <source>Seeds: “%1” is not a non-negative whole number</source>
        <translation>种子：“%1”不是非负整数</translation>
    </message>
    <message>
        <source>Seeds: %1 appears twice</source>
        <translation>种子：%1 出现了两次</translation>
    </message>
    <message>
        <source>Sweep row %1: choose a key</source>
        <translation>扫描第 %1 行：请选择一个键</translation>
    </message>
    <message>
        <source>Sweep: %1 appears twice</source>
        <translation>扫描：%1 出现了两次</translation>
    </message>
    <message>
        <source>Sweep: %1</source>
        <translation>扫描：%1</translation>
    </message>
    <message>
        <source>→ ? runs</source>
        <translation>→ ? 个运行</translation>
    </message>
    <message numerus="yes">
        <source>→ %n run(s)</source>
        <translation>
            <numerusform>→ %n 个运行</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>gb::gui::WorkspaceView</name>
    <message>
        <source>&lt;b&gt;Workspace&lt;/b&gt;</source>
        <translation>&lt;b&gt;工作区&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Open…</source>
        <translation>打开…</translation>
    </message>
    <message>
        <source>Open a folder holding growbench.db</source>
        <translation>打开包含 growbench.db 的文件夹</translation>
    </message>
    <message>
        <source>New…</source>
        <translation>新建…</translation>
    </message>
    <message>
        <source>Create an empty workspace in a new folder</source>
        <translation>在新文件夹中创建空工作区</translation>
    </message>
    <message>
        <source>Default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>The default workspace: %1 (where growbench-cli writes without --db)</source>
        <translation>默认工作区：%1（growbench-cli 在未指定 --db 时写入此处）</translation>
    </message>
    <message>
        <source>Run the quickstart here</source>
        <translation>在此运行快速入门</translation>
    </message>
    <message>
        <source>Adapt the built-in tiny English model to German with six methods (a few minutes on a CPU)</source>
        <translation>用六种方法将内置的英语微型模型适配到德语（在 CPU 上需几分钟）</translation>
    </message>
    <message>
        <source>Recent workspaces:</source>
        <translation>最近的工作区：</translation>
    </message>
    <message>
        <source>The quickstart spec was not found.</source>
        <translation>未找到快速入门规格。</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#c62828&apos;&gt;Could not open %1: %2&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#c62828&apos;&gt;无法打开 %1：%2&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Open workspace</source>
        <translation>打开工作区</translation>
    </message>
    <message>
        <source>%1 holds no growbench.db. Create a new workspace there?</source>
        <translation>%1 中没有 growbench.db。要在那里创建新工作区吗？</translation>
    </message>
    <message>
        <source>New workspace: choose an empty folder</source>
        <translation>新建工作区：请选择一个空文件夹</translation>
    </message>
    <message>
        <source>No workspace open.</source>
        <translation>未打开工作区。</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 个%2</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n 个运行</numerusform>
        </translation>
    </message>
    <message>
        <source>Store: %1 (%2)</source>
        <translation>存储：%1（%2）</translation>
    </message>
    <message>
        <source>Empty. Run the quickstart below, launch a run from the Runs view, or point growbench-cli at this store with --db.</source>
        <translation>空。可运行下方的快速入门、在“运行”视图中启动运行，或用 --db 让 growbench-cli 使用此存储。</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>GrowBench: grow language models without forgetting</source>
        <translation>GrowBench：扩展语言模型而不遗忘</translation>
    </message>
    <message>
        <source>Open this workspace.</source>
        <translation>打开此工作区。</translation>
    </message>
    <message>
        <source>Open this model folder.</source>
        <translation>打开此模型文件夹。</translation>
    </message>
    <message>
        <source>Messages on standard error from LEVEL up: trace, debug, info, warn, error or off (default: the environment variable GROWBENCH_LOG, else info). Workers started from the window inherit it.</source>
        <translation>在标准错误输出上显示 LEVEL 及以上级别的消息：trace、debug、info、warn、error 或 off（默认：环境变量 GROWBENCH_LOG，否则为 info）。从窗口启动的工作进程沿用该级别。</translation>
    </message>
    <message>
        <source>Save a screenshot of every view to OUTDIR, then exit.</source>
        <translation>将每个视图的截图保存到 OUTDIR，然后退出。</translation>
    </message>
    <message>
        <source>Print performance figures, then exit.</source>
        <translation>输出性能数据，然后退出。</translation>
    </message>
    <message>
        <source>With --measure: time opening this store.</source>
        <translation>与 --measure 一起使用：测量打开此存储所需的时间。</translation>
    </message>
    <message>
        <source>With --measure: run this spec and measure event-loop gaps meanwhile.</source>
        <translation>与 --measure 一起使用：运行此规格，同时测量事件循环的停顿。</translation>
    </message>
    <message>
        <source>Model folders, experiment specs (.json) or run stores to open (the desktop passes dropped or chosen files this way).</source>
        <translation>要打开的模型文件夹、实验规格（.json）或运行存储（桌面以此方式传递拖放或选择的文件）。</translation>
    </message>
</context>
</TS>
