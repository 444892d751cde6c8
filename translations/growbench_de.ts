<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>Compare</name>
    <message>
        <source>run %1</source>
        <translation>Lauf %1</translation>
    </message>
    <message>
        <source>runs %1</source>
        <translation>Läufe %1</translation>
    </message>
    <message>
        <source>forgetting: change of %1 (%)</source>
        <translation>Vergessen: Änderung von %1 (%)</translation>
    </message>
    <message>
        <source>learning: improvement of %1 (%)</source>
        <translation>Lernen: Verbesserung von %1 (%)</translation>
    </message>
    <message>
        <source>(not set)</source>
        <translation>(nicht gesetzt)</translation>
    </message>
    <message>
        <source> vs </source>
        <translation> gegenüber </translation>
    </message>
    <message>
        <source>the group has no runs</source>
        <translation>die Gruppe hat keine Läufe</translation>
    </message>
    <message>
        <source>(no plan)</source>
        <translation>(kein Plan)</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n run(s))</source>
        <translation>
            <numerusform>%1 (%n Lauf)</numerusform>
            <numerusform>%1 (%n Läufe)</numerusform>
        </translation>
    </message>
    <message>
        <source>forgetting at matched learning</source>
        <translation>Vergessen bei gleichem Lernen</translation>
    </message>
    <message>
        <source>no finished run of the group has both %1 and %2 at an evaluation</source>
        <translation>kein abgeschlossener Lauf der Gruppe hat %1 und %2 bei einer Auswertung</translation>
    </message>
    <message>
        <source>does not reach</source>
        <translation>erreicht es nicht</translation>
    </message>
    <message>
        <source>(%1 of %2 seeds)</source>
        <translation>(%1 von %2 Seeds)</translation>
    </message>
    <message>
        <source>Forgetting (%1) where %2 reaches %3%4: per seed, the point of its runs (every rate and evaluation) with the least validation forgetting; mean ± std over the seeds that reach the level</source>
        <translation>Vergessen (%1), wo %2 den Wert %3%4 erreicht: je Seed der Punkt seiner Läufe (jede Rate und Auswertung) mit dem geringsten Validierungs-Vergessen; Mittelwert ± Standardabweichung über die Seeds, die das Niveau erreichen</translation>
    </message>
    <message>
        <source> (auto)</source>
        <translation> (automatisch)</translation>
    </message>
    <message>
        <source>No finished run here has evaluations of both metrics.</source>
        <translation>Kein abgeschlossener Lauf hier hat Auswertungen beider Metriken.</translation>
    </message>
    <message>
        <source>A chosen point has no test value: these figures are on the validation sets.</source>
        <translation>Ein gewählter Punkt hat keinen Testwert: diese Zahlen beziehen sich auf die Validierungsmengen.</translation>
    </message>
    <message>
        <source>seed %1: run %2, lr %3, step %4: %5</source>
        <translation>Seed %1: Lauf %2, LR %3, Schritt %4: %5</translation>
    </message>
    <message>
        <source>seed %1: does not reach the level</source>
        <translation>Seed %1: erreicht das Niveau nicht</translation>
    </message>
    <message>
        <source>No forgetting at matched learning: %1</source>
        <translation>Kein Vergessen bei gleichem Lernen: %1</translation>
    </message>
    <message>
        <source>No forgetting at matched learning: the run is not finished or has no evaluation of both metrics</source>
        <translation>Kein Vergessen bei gleichem Lernen: der Lauf ist nicht abgeschlossen oder hat keine Auswertung beider Metriken</translation>
    </message>
    <message>
        <source>Forgetting at matched learning</source>
        <translation>Vergessen bei gleichem Lernen</translation>
    </message>
    <message>
        <source>Forgetting at matched learning (%1)</source>
        <translation>Vergessen bei gleichem Lernen (%1)</translation>
    </message>
    <message>
        <source>test</source>
        <translation>Test</translation>
    </message>
    <message>
        <source>validation</source>
        <translation>Validierung</translation>
    </message>
    <message>
        <source>Forgetting (%1, %2 sets) when learning (%3) reaches %4: per seed, the least validation forgetting of any run and evaluation that reaches it (interpolated between evaluations), then mean ± std over the seeds. “does not reach”: no run of it gets there. The level is set on the Trade-off tab (fronts).</source>
        <translation>Vergessen (%1, %2-Mengen), wenn das Lernen (%3) %4 erreicht: je Seed das geringste Validierungs-Vergessen aller Läufe und Auswertungen, die es erreichen (zwischen Auswertungen interpoliert), dann Mittelwert ± Standardabweichung über die Seeds. „erreicht es nicht“: kein Lauf kommt dorthin. Das Niveau wird im Reiter Abwägung (Fronten) gesetzt.</translation>
    </message>
    <message>
        <source>Auto level: the best learning every seed of every plan reaches.</source>
        <translation>Automatisches Niveau: das beste Lernen, das jeder Seed jedes Plans erreicht.</translation>
    </message>
    <message>
        <source>Learning (%1)</source>
        <translation>Lernen (%1)</translation>
    </message>
    <message>
        <source>Learning: the final value of %1 on the new domain (%2)</source>
        <translation>Lernen: der Endwert von %1 auf der neuen Domäne (%2)</translation>
    </message>
    <message>
        <source>lower is better</source>
        <translation>niedriger ist besser</translation>
    </message>
    <message>
        <source>higher is better</source>
        <translation>höher ist besser</translation>
    </message>
</context>
<context>
    <name>FilePicker</name>
    <message>
        <source>All files (*)</source>
        <translation>Alle Dateien (*)</translation>
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
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
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
        <translation>%1 B</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
</context>
<context>
    <name>GrowPlanner</name>
    <message>
        <source>Parallel adapters</source>
        <translation>Parallele Adapter</translation>
    </message>
    <message>
        <source>The neutral-residues block without a gate and without the local loss.</source>
        <translation>Der Neutral-Residues-Block ohne Gate und ohne lokalen Verlust.</translation>
    </message>
    <message>
        <source>ELU (implicit)</source>
        <translation>ELU (implizit)</translation>
    </message>
    <message>
        <source>Sigmoid (explicit)</source>
        <translation>Sigmoid (explizit)</translation>
    </message>
    <message>
        <source>Gate</source>
        <translation>Gate</translation>
    </message>
    <message>
        <source>ELU: the implicit selector “that we refer to as neutral residues”. Sigmoid: an explicit selector “trained as a local binary classifier” of the domain.</source>
        <translation>ELU: der implizite Selektor, „den wir als Neutral Residues bezeichnen“. Sigmoid: ein expliziter Selektor, „als lokaler binärer Klassifikator trainiert“ für die Domäne.</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>Schichten</translation>
    </message>
    <message>
        <source>Layers that get an adapter beside their MLP: &quot;all&quot;, a list or a policy.</source>
        <translation>Schichten, die neben ihrem MLP einen Adapter erhalten: &quot;all&quot;, eine Liste oder eine Richtlinie.</translation>
    </message>
    <message>
        <source>Budget</source>
        <translation>Budget</translation>
    </message>
    <message>
        <source>Extra parameters as a fraction of the base model (“with only 20% extra learnable weights”).</source>
        <translation>Zusätzliche Parameter als Anteil des Basismodells („mit nur 20 % zusätzlichen lernbaren Gewichten“).</translation>
    </message>
    <message>
        <source>Extra parameters as a fraction of the base model.</source>
        <translation>Zusätzliche Parameter als Anteil des Basismodells.</translation>
    </message>
    <message>
        <source>Inner size</source>
        <translation>Innere Größe</translation>
    </message>
    <message>
        <source>Adapter inner size; 0 derives it from the budget.</source>
        <translation>Innere Größe des Adapters; 0 leitet sie aus dem Budget ab.</translation>
    </message>
    <message>
        <source>Local loss α</source>
        <translation>Lokaler Verlust α</translation>
    </message>
    <message>
        <source>Coefficient of the ℓ1 local loss on original-domain batches (“best optimized when selected α = 100”); 0 switches it off.</source>
        <translation>Koeffizient des lokalen ℓ1-Verlusts auf Batches der Ursprungsdomäne („am besten optimiert mit α = 100“); 0 schaltet ihn ab.</translation>
    </message>
    <message>
        <source>Heads H</source>
        <translation>Heads H</translation>
    </message>
    <message>
        <source>Slices of the hidden state, each with “its own router and its own private expert bank”; “OP improves with M and is best at M = 16”. Must divide the hidden size.</source>
        <translation>Abschnitte des verborgenen Zustands, jeder mit „eigenem Router und eigener privater Expertengruppe“; „OP verbessert sich mit M und ist bei M = 16 am besten“. Muss die verborgene Größe teilen.</translation>
    </message>
    <message>
        <source>Experts K</source>
        <translation>Experten K</translation>
    </message>
    <message>
        <source>Experts per head.</source>
        <translation>Experten pro Head.</translation>
    </message>
    <message>
        <source>Experts per bank.</source>
        <translation>Experten pro Gruppe.</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Experts per token and head.</source>
        <translation>Experten pro Token und Head.</translation>
    </message>
    <message>
        <source>Experts per token.</source>
        <translation>Experten pro Token.</translation>
    </message>
    <message>
        <source>Rank r</source>
        <translation>Rang r</translation>
    </message>
    <message>
        <source>Alpha</source>
        <translation>Alpha</translation>
    </message>
    <message>
        <source>Scale alpha / r; 0 = scale 1.</source>
        <translation>Skalierung alpha / r; 0 = Skalierung 1.</translation>
    </message>
    <message>
        <source>LoRA-style scale alpha / r; 0 = scale 1.</source>
        <translation>Skalierung alpha / r wie bei LoRA; 0 = Skalierung 1.</translation>
    </message>
    <message>
        <source>Balance loss</source>
        <translation>Balance-Verlust</translation>
    </message>
    <message>
        <source>Load-balancing loss coefficient.</source>
        <translation>Koeffizient des Lastausgleichsverlusts.</translation>
    </message>
    <message>
        <source>Coefficient of the load-balancing loss (0 = off).</source>
        <translation>Koeffizient des Lastausgleichsverlusts (0 = aus).</translation>
    </message>
    <message>
        <source>Depth expansion (LLaMA-Pro, ADEPT)</source>
        <translation>Tiefenerweiterung (LLaMA-Pro, ADEPT)</translation>
    </message>
    <message>
        <source>LLaMA-Pro (uniform)</source>
        <translation>LLaMA-Pro (gleichmäßig)</translation>
    </message>
    <message>
        <source>ADEPT</source>
        <translation>ADEPT</translation>
    </message>
    <message>
        <source>Style</source>
        <translation>Stil</translation>
    </message>
    <message>
        <source>Blocks P</source>
        <translation>Blöcke P</translation>
    </message>
    <message>
        <source>Number of blocks LLaMA-Pro inserts.</source>
        <translation>Anzahl der Blöcke, die LLaMA-Pro einfügt.</translation>
    </message>
    <message>
        <source>EWC</source>
        <translation>EWC</translation>
    </message>
    <message>
        <source>Full fine-tuning plus λ/2 · Σ F_i (θ_i − θ*_i)² with the diagonal Fisher of the base model on the original domain.</source>
        <translation>Vollständige Feinabstimmung plus λ/2 · Σ F_i (θ_i − θ*_i)² mit der diagonalen Fisher-Information des Basismodells auf der Ursprungsdomäne.</translation>
    </message>
    <message>
        <source>EWC changes no weights at initialisation (its penalty needs the Fisher of a probe): nothing to check.</source>
        <translation>EWC ändert bei der Initialisierung keine Gewichte (sein Strafterm braucht die Fisher-Information einer Sondierung): nichts zu prüfen.</translation>
    </message>
    <message>
        <source>λ</source>
        <translation>λ</translation>
    </message>
    <message>
        <source>Strength of the penalty λ/2 · Σ F_i (θ_i − θ*_i)².</source>
        <translation>Stärke des Strafterms λ/2 · Σ F_i (θ_i − θ*_i)².</translation>
    </message>
    <message>
        <source>Freeze bottom layers</source>
        <translation>Untere Schichten einfrieren</translation>
    </message>
    <message>
        <source>Trains all but the bottom k layers and the input embedding.</source>
        <translation>Trainiert alles außer den unteren k Schichten und der Eingabe-Einbettung.</translation>
    </message>
    <message>
        <source>Frozen bottom layers</source>
        <translation>Eingefrorene untere Schichten</translation>
    </message>
    <message>
        <source>“Freeze trains all but the bottom k layers and the input embedding.”</source>
        <translation>„Freeze trainiert alles außer den unteren k Schichten und der Eingabe-Einbettung.“</translation>
    </message>
    <message>
        <source>Freeze the embedding</source>
        <translation>Einbettung einfrieren</translation>
    </message>
    <message>
        <source>Also freeze the token embedding (and with tied embeddings the LM head).</source>
        <translation>Auch die Token-Einbettung einfrieren (und bei gekoppelten Einbettungen den LM-Kopf).</translation>
    </message>
    <message>
        <source>Full fine-tuning</source>
        <translation>Vollständige Feinabstimmung</translation>
    </message>
    <message>
        <source>Every parameter trains. The baseline that forgets most.</source>
        <translation>Alle Parameter werden trainiert. Die Vergleichsbasis, die am meisten vergisst.</translation>
    </message>
    <message>
        <source>Grow (MLP width replication)</source>
        <translation>Grow (Verbreiterung des MLP durch Replikation)</translation>
    </message>
    <message>
        <source>“Grow, don&apos;t overwrite”: the up-projection is concatenated k times and each copy of the down-projection scaled by 1/k; function preserving for any k.</source>
        <translation>„Grow, don&apos;t overwrite“: die Up-Projektion wird k-mal aneinandergehängt und jede Kopie der Down-Projektion mit 1/k skaliert; funktionserhaltend für jedes k.</translation>
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
        <translation>Modus</translation>
    </message>
    <message>
        <source>G-Freeze “strictly trains only the newly added weights”; G-Train trains “the entire expanded up-projection matrix while keeping the entire down-projection matrix and all other original parameters frozen”.</source>
        <translation>G-Freeze „trainiert ausschließlich die neu hinzugefügten Gewichte“; G-Train trainiert „die gesamte erweiterte Up-Projektionsmatrix, während die gesamte Down-Projektionsmatrix und alle anderen ursprünglichen Parameter eingefroren bleiben“.</translation>
    </message>
    <message>
        <source>Replication factor k</source>
        <translation>Replikationsfaktor k</translation>
    </message>
    <message>
        <source>k copies of each MLP unit, the down copies scaled by 1/k; “using k = 2 consistently provided the best trade-off”.</source>
        <translation>k Kopien jeder MLP-Einheit, die Down-Kopien mit 1/k skaliert; „k = 2 lieferte durchgehend den besten Kompromiss“.</translation>
    </message>
    <message>
        <source>Layers whose MLP grows: &quot;all&quot;, a list of indices or a selection policy.</source>
        <translation>Schichten, deren MLP wächst: &quot;all&quot;, eine Liste von Indizes oder eine Auswahlrichtlinie.</translation>
    </message>
    <message>
        <source>LoRA</source>
        <translation>LoRA</translation>
    </message>
    <message>
        <source>Low-rank adapters W x + (alpha/r)·B A x on the target projections, W frozen, B = 0 at initialisation.</source>
        <translation>Niedrigrang-Adapter W x + (alpha/r)·B A x auf den Zielprojektionen, W eingefroren, B = 0 bei der Initialisierung.</translation>
    </message>
    <message>
        <source>Rank of A (r × in) and B (out × r); r · (in + out) trainable parameters per target and layer.</source>
        <translation>Rang von A (r × in) und B (out × r); r · (in + out) trainierbare Parameter pro Ziel und Schicht.</translation>
    </message>
    <message>
        <source>Targets</source>
        <translation>Ziele</translation>
    </message>
    <message>
        <source>Projections that get adapters; gate exists only on gated MLPs (Llama, Qwen, Gemma).</source>
        <translation>Projektionen, die Adapter erhalten; gate gibt es nur bei MLPs mit Gate (Llama, Qwen, Gemma).</translation>
    </message>
    <message>
        <source>Layers that get adapters: &quot;all&quot;, a list of indices or a selection policy.</source>
        <translation>Schichten, die Adapter erhalten: &quot;all&quot;, eine Liste von Indizes oder eine Auswahlrichtlinie.</translation>
    </message>
    <message>
        <source>LoRAMoE</source>
        <translation>LoRAMoE</translation>
    </message>
    <message>
        <source>MH-MoE (multi-head routing)</source>
        <translation>MH-MoE (Multi-Head-Routing)</translation>
    </message>
    <message>
        <source>Neutral residues (gated adapters)</source>
        <translation>Neutral Residues (Adapter mit Gate)</translation>
    </message>
    <message>
        <source>A gated adapter beside each selected MLP whose gate learns to output zero on original-domain data (ℓ1 local loss).</source>
        <translation>Ein Adapter mit Gate neben jedem ausgewählten MLP, dessen Gate lernt, auf Daten der Ursprungsdomäne null auszugeben (lokaler ℓ1-Verlust).</translation>
    </message>
    <message>
        <source>SCALE (width upscaling)</source>
        <translation>SCALE (Verbreiterung)</translation>
    </message>
    <message>
        <source>Every linear W becomes [[W, W12], [W21, W22]]; with W12 = 0 in every layer the original stream is the base model&apos;s bit for bit.</source>
        <translation>Jede lineare Schicht W wird zu [[W, W12], [W21, W22]]; mit W12 = 0 in jeder Schicht ist der ursprüngliche Datenstrom bitgenau der des Basismodells.</translation>
    </message>
    <message>
        <source>Preserve</source>
        <translation>Preserve</translation>
    </message>
    <message>
        <source>Adapt</source>
        <translation>Adapt</translation>
    </message>
    <message>
        <source>Route</source>
        <translation>Route</translation>
    </message>
    <message>
        <source>Preserve: W12 “initialized to 0 and kept frozen”, original weights frozen. Adapt: W12 zero-initialised and trainable above L_fp. Route: per token, “if Z_preserve and Z_adapt agree (high cosine similarity), we route to SCALE-Preserve; otherwise we route to SCALE-Adapt”.</source>
        <translation>Preserve: W12 „mit 0 initialisiert und eingefroren“, ursprüngliche Gewichte eingefroren. Adapt: W12 mit null initialisiert und oberhalb von L_fp trainierbar. Route: pro Token „stimmen Z_preserve und Z_adapt überein (hohe Kosinus-Ähnlichkeit), wird zu SCALE-Preserve geleitet, andernfalls zu SCALE-Adapt“.</translation>
    </message>
    <message>
        <source>Added hidden width d_up</source>
        <translation>Zusätzliche verborgene Breite d_up</translation>
    </message>
    <message>
        <source>A multiple of head_dim · (heads / kv heads), so whole kv groups of heads are added.</source>
        <translation>Ein Vielfaches von head_dim · (Heads / KV-Heads), damit ganze KV-Gruppen von Heads hinzukommen.</translation>
    </message>
    <message>
        <source>Added MLP width p_up</source>
        <translation>Zusätzliche MLP-Breite p_up</translation>
    </message>
    <message>
        <source>Added MLP inner width.</source>
        <translation>Zusätzliche innere Breite des MLP.</translation>
    </message>
    <message>
        <source>L_fp</source>
        <translation>L_fp</translation>
    </message>
    <message>
        <source>The lowest L_fp layers keep W12 zero and frozen; “forgetting increases exponentially with decreasing L_fp”.</source>
        <translation>Die untersten L_fp Schichten behalten W12 bei null und eingefroren; „das Vergessen nimmt mit sinkendem L_fp exponentiell zu“.</translation>
    </message>
    <message>
        <source>Collaboration in attention only</source>
        <translation>Zusammenarbeit nur in der Attention</translation>
    </message>
    <message>
        <source>Route threshold τ</source>
        <translation>Routing-Schwelle τ</translation>
    </message>
    <message>
        <source>Threshold on cos(Z_p, Z_a); “we fix τ = 0.5 as a robust default”.</source>
        <translation>Schwelle für cos(Z_p, Z_a); „wir setzen τ = 0.5 als robusten Standardwert“.</translation>
    </message>
    <message>
        <source>(0, 0)</source>
        <translation>(0, 0)</translation>
    </message>
    <message>
        <source>(0, random)</source>
        <translation>(0, zufällig)</translation>
    </message>
    <message>
        <source>(0, SVD)</source>
        <translation>(0, SVD)</translation>
    </message>
    <message>
        <source>(random, 0)</source>
        <translation>(zufällig, 0)</translation>
    </message>
    <message>
        <source>(random, random)</source>
        <translation>(zufällig, zufällig)</translation>
    </message>
    <message>
        <source>(random, SVD)</source>
        <translation>(zufällig, SVD)</translation>
    </message>
    <message>
        <source>(SVD, 0)</source>
        <translation>(SVD, 0)</translation>
    </message>
    <message>
        <source>(SVD, random)</source>
        <translation>(SVD, zufällig)</translation>
    </message>
    <message>
        <source>(SVD, SVD)</source>
        <translation>(SVD, SVD)</translation>
    </message>
    <message>
        <source>W21, W22 initialisation</source>
        <translation>Initialisierung von W21, W22</translation>
    </message>
    <message>
        <source>Initialisation of the new rows: zero, random, or SVD (the top singular directions of W). Default (SVD, 0).</source>
        <translation>Initialisierung der neuen Zeilen: null, zufällig oder SVD (die obersten singulären Richtungen von W). Standard (SVD, 0).</translation>
    </message>
    <message>
        <source>Unit-wise learning rates (stage 2)</source>
        <translation>Lernraten pro Einheit (Stufe 2)</translation>
    </message>
    <message>
        <source>Update interval T_update</source>
        <translation>Aktualisierungsintervall T_update</translation>
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
        <translation>Einheitenwichtigkeit</translation>
    </message>
    <message>
        <source>Renormalised over the selected (eq. 13)</source>
        <translation>Über die ausgewählten renormiert (Gl. 13)</translation>
    </message>
    <message>
        <source>Softmax over all experts</source>
        <translation>Softmax über alle Experten</translation>
    </message>
    <message>
        <source>Router weights</source>
        <translation>Router-Gewichte</translation>
    </message>
    <message>
        <source>Renormalised: the paper&apos;s eq. 13, a softmax over the selected experts only; with top-1 the weight is exactly 1 and the router never trains (the run records a warning). Softmax over all: the selected experts keep their share of a softmax over all K (Switch-style), so a top-1 router learns.</source>
        <translation>Renormiert: Gl. 13 des Papers, eine Softmax nur über die ausgewählten Experten; bei Top-1 ist das Gewicht genau 1 und der Router trainiert nie (der Lauf vermerkt eine Warnung). Softmax über alle: die ausgewählten Experten behalten ihren Anteil an einer Softmax über alle K (wie bei Switch), so lernt auch ein Top-1-Router.</translation>
    </message>
    <message>
        <source>Match the activated parameters of</source>
        <translation>Aktivierte Parameter angleichen an</translation>
    </message>
    <message>
        <source>A reference plan: the rank is chosen so that the parameters active per token equal the reference&apos;s on the model as closely as possible (instead of &apos;rank&apos;).</source>
        <translation>Ein Referenzplan: der Rang wird so gewählt, dass die pro Token aktiven Parameter denen der Referenz auf dem Modell möglichst genau entsprechen (statt &apos;rank&apos;).</translation>
    </message>
    <message>
        <source>Rank of each expert (d_in/H → r → d_out).</source>
        <translation>Rang jedes Experten (d_in/H → r → d_out).</translation>
    </message>
    <message>
        <source>Rank of each expert (d_in → r → d_out).</source>
        <translation>Rang jedes Experten (d_in → r → d_out).</translation>
    </message>
    <message>
        <source>Beside each MLP linear (paper, A.3.4)</source>
        <translation>Neben jeder linearen MLP-Schicht (Paper, A.3.4)</translation>
    </message>
    <message>
        <source>Beside the whole MLP</source>
        <translation>Neben dem ganzen MLP</translation>
    </message>
    <message>
        <source>Placement</source>
        <translation>Platzierung</translation>
    </message>
    <message>
        <source>Beside each MLP linear: a bank of experts in parallel to each of gate, up and down (GPT-2, GPT-NeoX: the two MLP linears), each expert mapping that linear&apos;s input to its output, as the paper attaches experts. Beside the whole MLP: one bank d → r → d reading the MLP&apos;s input.</source>
        <translation>Neben jeder linearen MLP-Schicht: eine Expertenbank parallel zu gate, up und down (GPT-2, GPT-NeoX: die beiden linearen MLP-Schichten); jeder Experte bildet die Eingabe dieser Schicht auf ihre Ausgabe ab, so wie das Paper Experten anbringt. Neben dem ganzen MLP: eine Bank d → r → d, die die Eingabe des MLP liest.</translation>
    </message>
    <message>
        <source>Layers whose MLP gets expert banks: &quot;all&quot;, a list or a policy.</source>
        <translation>Schichten, deren MLP Expertenbänke erhält: &quot;all&quot;, eine Liste oder eine Regel.</translation>
    </message>
    <message>
        <source>Banks of K LoRA experts beside each linear of the selected MLPs (gate, up, down), each with a top-k router over whole tokens.</source>
        <translation>Bänke aus K LoRA-Experten neben jeder linearen Schicht der gewählten MLPs (gate, up, down), jede mit einem Top-k-Router über ganze Token.</translation>
    </message>
    <message>
        <source>The input of each MLP linear is split into H heads, each with its own router and expert bank; the heads&apos; outputs are summed.</source>
        <translation>Die Eingabe jeder linearen MLP-Schicht wird in H Köpfe geteilt, jeder mit eigenem Router und eigener Expertenbank; die Ausgaben der Köpfe werden summiert.</translation>
    </message>
    <message>
        <source>All linears</source>
        <translation>Alle linearen Schichten</translation>
    </message>
    <message>
        <source>Attention only</source>
        <translation>Nur Attention</translation>
    </message>
    <message>
        <source>FFN only</source>
        <translation>Nur FFN</translation>
    </message>
    <message>
        <source>Collaborating modules</source>
        <translation>Zusammenarbeitende Module</translation>
    </message>
    <message>
        <source>Where W12 trains above L_fp: every linear, attention (q, k, v, o) only (“MHA as the preferred collaborative module”) or the FFN (gate, up, down) only, the module ablation of §3.3.</source>
        <translation>Wo W12 oberhalb von L_fp trainiert: jede lineare Schicht, nur Attention (q, k, v, o) („MHA als bevorzugtes kollaboratives Modul“) oder nur das FFN (gate, up, down), die Modul-Ablation aus §3.3.</translation>
    </message>
    <message>
        <source>Earlier name of collaboration = attention (kept so that earlier plans load).</source>
        <translation>Früherer Name von collaboration = attention (bleibt, damit ältere Pläne laden).</translation>
    </message>
    <message>
        <source>Copies of layers inserted right after them with zeroed output projections, so each starts as the identity; only new blocks train. In place: no copies, the chosen layers train.</source>
        <translation>Kopien von Schichten werden direkt nach ihnen eingefügt, mit genullten Ausgabeprojektionen, sodass jede als Identität beginnt; nur neue Blöcke werden trainiert. An Ort und Stelle: keine Kopien, die gewählten Schichten werden trainiert.</translation>
    </message>
    <message>
        <source>In place (ADEPT without stage 1)</source>
        <translation>An Ort und Stelle (ADEPT ohne Stufe 1)</translation>
    </message>
    <message>
        <source>LLaMA-Pro inserts P blocks uniformly, after every L/P layers. ADEPT copies “the k least-important ones for general competence”. In place copies nothing: the chosen layers themselves train, with unit-wise rates (ADEPT without stage 1).</source>
        <translation>LLaMA-Pro fügt P Blöcke gleichmäßig ein, nach jeweils L/P Schichten. ADEPT kopiert „die k für die allgemeine Kompetenz am wenigsten wichtigen“. An Ort und Stelle kopiert nichts: die gewählten Schichten selbst werden trainiert, mit Lernraten pro Einheit (ADEPT ohne Stufe 1).</translation>
    </message>
    <message>
        <source>ADEPT: the layers copied (a list or a selection policy; not &quot;all&quot;). In place: the layers that train.</source>
        <translation>ADEPT: die kopierten Schichten (eine Liste oder eine Auswahlrichtlinie; nicht &quot;all&quot;). An Ort und Stelle: die Schichten, die trainiert werden.</translation>
    </message>
    <message>
        <source>ADEPT stage 2: every unit U of a new block (in place: of a chosen layer) trains with lr_U = 2·(1 − Î_U)·lr, Î_U its importance min-max normalised over those units. On by default for ADEPT (off: ADEPT without stage 2) and in place, off for LLaMA-Pro (on: LLaMA-Pro placement with stage 2).</source>
        <translation>ADEPT-Stufe 2: jede Einheit U eines neuen Blocks (an Ort und Stelle: einer gewählten Schicht) trainiert mit lr_U = 2·(1 − Î_U)·lr, Î_U ihre über diese Einheiten min-max-normierte Wichtigkeit. Standardmäßig an für ADEPT (aus: ADEPT ohne Stufe 2) und an Ort und Stelle, aus für LLaMA-Pro (an: LLaMA-Pro-Platzierung mit Stufe 2).</translation>
    </message>
    <message>
        <source>Training steps between assignments of the unit rates (stage 2): the first after T_update steps, never at step 0 (the base rate until then).</source>
        <translation>Trainingsschritte zwischen zwei Zuweisungen der Einheiten-Lernraten (Stufe 2): die erste nach T_update Schritten, nie bei Schritt 0 (bis dahin die Basisrate).</translation>
    </message>
    <message>
        <source>Taylor |θ|·mean|∂L_b/∂θ| (ADEPT&apos;s code)</source>
        <translation>Taylor |θ|·mean|∂L_b/∂θ| (ADEPTs Code)</translation>
    </message>
    <message>
        <source>Taylor θ·∂L/∂θ (the paper&apos;s text)</source>
        <translation>Taylor θ·∂L/∂θ (wie im Text des Papers)</translation>
    </message>
    <message>
        <source>The importance I_U of stage 2, measured on the general probe set. The paper&apos;s signed θ·∂L/∂θ cancels: q and k (v and o, up and down) come out identical.</source>
        <translation>Die Wichtigkeit I_U der Stufe 2, gemessen auf der allgemeinen Probe-Menge. Das vorzeichenbehaftete θ·∂L/∂θ des Papers hebt sich auf: q und k (v und o, up und down) ergeben denselben Wert.</translation>
    </message>
    <message>
        <source>Over all units (ADEPT&apos;s code)</source>
        <translation>Über alle Einheiten (ADEPTs Code)</translation>
    </message>
    <message>
        <source>Per kind (norms apart from matrices)</source>
        <translation>Pro Art (Normen getrennt von Matrizen)</translation>
    </message>
    <message>
        <source>Normalise importance</source>
        <translation>Wichtigkeit normieren</translation>
    </message>
    <message>
        <source>Stage 2&apos;s min-max normalisation: over all the units, or norms and matrices apart (a norm&apos;s importance is 100× or more a matrix&apos;s).</source>
        <translation>Min-max-Normierung der Stufe 2: über alle Einheiten oder Normen und Matrizen getrennt (die Wichtigkeit einer Norm ist 100-mal oder mehr so groß wie die einer Matrix).</translation>
    </message>
    <message>
        <source>Extra parameters as a fraction of the base model, as neutral residues size their adapters: the rank whose parameters come nearest to it (instead of &apos;rank&apos;); 0 = the rank as given.</source>
        <translation>Zusätzliche Parameter als Anteil des Basismodells, wie Neutral Residues ihre Adapter bemessen: der Rang, dessen Parameter ihm am nächsten kommen (statt &apos;rank&apos;); 0 = der angegebene Rang.</translation>
    </message>
    <message>
        <source>Scale numerator: the update B A x is scaled by alpha / r (absent or 0: 2 · rank).</source>
        <translation>Zähler der Skalierung: die Aktualisierung B A x wird mit alpha / r skaliert (fehlend oder 0: 2 · Rang).</translation>
    </message>
    <message>
        <source>Policy: k least important</source>
        <translation>Regel: die k unwichtigsten</translation>
    </message>
    <message>
        <source>The k layers least important on the original domain (ADEPT §3.1), by the masking score; resolved from a probe when the run starts.</source>
        <translation>Die k Schichten, die auf der ursprünglichen Domäne am unwichtigsten sind (ADEPT §3.1), nach dem Maskierungswert; beim Start des Laufs aus einer Sondierung bestimmt.</translation>
    </message>
    <message>
        <source>Policy: k most important</source>
        <translation>Regel: die k wichtigsten</translation>
    </message>
    <message>
        <source>The k layers most important on the original domain, by the masking score; resolved from a probe when the run starts.</source>
        <translation>Die k Schichten, die auf der ursprünglichen Domäne am wichtigsten sind, nach dem Maskierungswert; beim Start des Laufs aus einer Sondierung bestimmt.</translation>
    </message>
    <message>
        <source>Policy: calibrated (domain-critical)</source>
        <translation>Regel: kalibriert (domänenkritisch)</translation>
    </message>
    <message>
        <source>The k layers whose importance rank on the new domain most exceeds their rank on the original domain (ADEPT App. R), by the masking score.</source>
        <translation>Die k Schichten, deren Wichtigkeitsrang auf der neuen Domäne ihren Rang auf der ursprünglichen Domäne am stärksten übertrifft (ADEPT Anh. R), nach dem Maskierungswert.</translation>
    </message>
    <message>
        <source>Policy: top-k by update magnitude</source>
        <translation>Regel: Top-k nach Aktualisierungsbetrag</translation>
    </message>
    <message>
        <source>The k layers whose weights move most in a preliminary fine-tuning run on the new domain (Grow §4.2).</source>
        <translation>Die k Schichten, deren Gewichte sich in einem vorbereitenden Feinabstimmungslauf auf der neuen Domäne am stärksten ändern (Grow §4.2).</translation>
    </message>
    <message>
        <source>Policy: uniform positions (LLaMA-Pro)</source>
        <translation>Regel: gleichmäßige Positionen (LLaMA-Pro)</translation>
    </message>
    <message>
        <source>P layers spread evenly, one after every L/P layers (LLaMA-Pro).</source>
        <translation>P Schichten gleichmäßig verteilt, eine nach jeweils L/P Schichten (LLaMA-Pro).</translation>
    </message>
    <message>
        <source>Policy: every layer above l_fp (SCALE)</source>
        <translation>Regel: jede Schicht oberhalb von l_fp (SCALE)</translation>
    </message>
    <message>
        <source>Every layer above the lowest l_fp (SCALE&apos;s L_fp).</source>
        <translation>Jede Schicht oberhalb der untersten l_fp (L_fp von SCALE).</translation>
    </message>
    <message>
        <source>Manual list</source>
        <translation>Manuelle Liste</translation>
    </message>
    <message>
        <source>The layers given.</source>
        <translation>Die angegebenen Schichten.</translation>
    </message>
</context>
<context>
    <name>PlanEstimate</name>
    <message>
        <source>The layer policy is resolved from importance probes when the run starts; the figures assume its layer count.</source>
        <translation>Die Schichtauswahl wird beim Start des Laufs aus den Wichtigkeitssondierungen bestimmt; die Kennzahlen setzen ihre Schichtanzahl voraus.</translation>
    </message>
    <message>
        <source>Cannot tell which layers the plan selects.</source>
        <translation>Es lässt sich nicht bestimmen, welche Schichten der Plan auswählt.</translation>
    </message>
    <message>
        <source>SCALE counts follow the operator&apos;s block structure; the exact numbers come from “Check preservation”.</source>
        <translation>Die SCALE-Zahlen folgen der Blockstruktur des Operators; die genauen Werte liefert „Erhaltung prüfen“.</translation>
    </message>
</context>
<context>
    <name>Plot</name>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG-Bild (*.png);;SVG-Zeichnung (*.svg);;PDF-Dokument (*.pdf)</translation>
    </message>
    <message>
        <source>GrowBench plot</source>
        <translation>GrowBench-Diagramm</translation>
    </message>
    <message>
        <source>Unknown image format &apos;%1&apos;: use .png, .svg or .pdf.</source>
        <translation>Unbekanntes Bildformat „%1“: verwenden Sie .png, .svg oder .pdf.</translation>
    </message>
    <message>
        <source>Could not write %1.</source>
        <translation>%1 konnte nicht geschrieben werden.</translation>
    </message>
</context>
<context>
    <name>RunStatus</name>
    <message>
        <source>Queued</source>
        <translation>Wartend</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>Läuft</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>Beendet</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <source>Interrupted</source>
        <translation>Unterbrochen</translation>
    </message>
    <message>
        <source>Diverged</source>
        <translation>Divergiert</translation>
    </message>
    <message>
        <source>Stopped by its guard</source>
        <translation>Von seinem Wächter gestoppt</translation>
    </message>
</context>
<context>
    <name>Runs</name>
    <message>
        <source>uniform, %1 blocks</source>
        <translation>gleichmäßig, %1 Blöcke</translation>
    </message>
    <message>
        <source>bottom %1 frozen</source>
        <translation>untere %1 eingefroren</translation>
    </message>
</context>
<context>
    <name>SpecSchema</name>
    <message>
        <source>Spec version</source>
        <translation>Spezifikationsversion</translation>
    </message>
    <message>
        <source>spec format version</source>
        <translation>Version des Spezifikationsformats</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>prefix of the run names</source>
        <translation>Präfix der Laufnamen</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>Beschreibung</translation>
    </message>
    <message>
        <source>what the experiment is for (text kept with the spec)</source>
        <translation>wozu das Experiment dient (Text, der mit der Spezifikation gespeichert wird)</translation>
    </message>
    <message>
        <source>Comment</source>
        <translation>Kommentar</translation>
    </message>
    <message>
        <source>a note kept with the spec</source>
        <translation>eine Notiz, die mit der Spezifikation gespeichert wird</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Seed</translation>
    </message>
    <message>
        <source>base model (presets), data splits, probe sets; also the run seed unless `seeds` is given</source>
        <translation>Basismodell (Vorlagen), Datenaufteilungen, Sondierungsmengen; auch der Lauf-Seed, sofern `seeds` nicht angegeben ist</translation>
    </message>
    <message>
        <source>Run seed</source>
        <translation>Lauf-Seed</translation>
    </message>
    <message>
        <source>the run seed: data order and new parameters&apos; initial values (each expanded run&apos;s spec holds it; give `seeds` instead)</source>
        <translation>der Lauf-Seed: Datenreihenfolge und Anfangswerte der neuen Parameter (die Spezifikation jedes expandierten Laufs enthält ihn; geben Sie stattdessen `seeds` an)</translation>
    </message>
    <message>
        <source>Seeds</source>
        <translation>Seeds</translation>
    </message>
    <message>
        <source>one run per seed: the run seed sets data order and new parameters&apos; initial values</source>
        <translation>ein Lauf pro Seed: der Lauf-Seed bestimmt die Datenreihenfolge und die Anfangswerte der neuen Parameter</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>Sweep</translation>
    </message>
    <message>
        <source>a grid (or random search) over `train.*` keys and plan parameters → values (see Seeds, sweeps and groups)</source>
        <translation>ein Raster (oder eine Zufallssuche) über `train.*`-Schlüssel und Planparameter → Werte (siehe „Seeds, sweeps and groups“)</translation>
    </message>
    <message>
        <source>Sweep mode</source>
        <translation>Sweep-Modus</translation>
    </message>
    <message>
        <source>`random` with `samples: N` draws N points</source>
        <translation>`random` mit `samples: N` zieht N Punkte</translation>
    </message>
    <message>
        <source>Samples</source>
        <translation>Stichproben</translation>
    </message>
    <message>
        <source>random points drawn per plan</source>
        <translation>zufällig gezogene Punkte pro Plan</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>`cpu`, `cuda` or `cuda:N`</source>
        <translation>`cpu`, `cuda` oder `cuda:N`</translation>
    </message>
    <message>
        <source>Data type</source>
        <translation>Datentyp</translation>
    </message>
    <message>
        <source>weights&apos; dtype</source>
        <translation>dtype der Gewichte</translation>
    </message>
    <message>
        <source>Frozen weights&apos; dtype</source>
        <translation>dtype der eingefrorenen Gewichte</translation>
    </message>
    <message>
        <source>the frozen weight matrices&apos; dtype while training (linear units, embeddings, a plain head) where it is narrower than `dtype`: `checkpoint` keeps the checkpoint&apos;s own (a bf16 checkpoint&apos;s frozen base stays bf16: half the memory), `float32` converts them like every other weight; trainable and new parameters, gradients and optimizer state keep `dtype`</source>
        <translation>dtype der eingefrorenen Gewichtsmatrizen beim Training (lineare Einheiten, Embeddings, ein einfacher Kopf), wo er schmaler als `dtype` ist: `checkpoint` behält den des Checkpoints (die eingefrorene Basis eines bf16-Checkpoints bleibt bf16: halber Speicher), `float32` wandelt sie wie jedes andere Gewicht um; trainierbare und neue Parameter, Gradienten und Optimiererzustand behalten `dtype`</translation>
    </message>
    <message>
        <source>Threads</source>
        <translation>Threads</translation>
    </message>
    <message>
        <source>LibTorch intra-op threads (1 is fastest with OpenBLAS on 2 cores)</source>
        <translation>LibTorch-Intra-Op-Threads (1 ist mit OpenBLAS auf 2 Kernen am schnellsten)</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>a Hugging Face or GrowBench folder (a path string or {&quot;path&quot;: ...}), or a preset</source>
        <translation>ein Hugging-Face- oder GrowBench-Ordner (ein Pfad-String oder {&quot;path&quot;: ...}) oder eine Vorlage</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>Ordner</translation>
    </message>
    <message>
        <source>the model folder</source>
        <translation>der Modellordner</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>Vorlage</translation>
    </message>
    <message>
        <source>a built-in model trained from scratch</source>
        <translation>ein eingebautes Modell, von Grund auf trainiert</translation>
    </message>
    <message>
        <source>Config overrides</source>
        <translation>Konfigurationsänderungen</translation>
    </message>
    <message>
        <source>config.json overrides of the preset&apos;s architecture</source>
        <translation>config.json-Überschreibungen der Architektur der Vorlage</translation>
    </message>
    <message>
        <source>Tokenizer</source>
        <translation>Tokenizer</translation>
    </message>
    <message>
        <source>the byte-level BPE tokenizer trained for the preset</source>
        <translation>der für die Vorlage trainierte Byte-Level-BPE-Tokenizer</translation>
    </message>
    <message>
        <source>Tokenizer text</source>
        <translation>Tokenizer-Text</translation>
    </message>
    <message>
        <source>the tokenizer&apos;s text: one source or a list</source>
        <translation>der Text des Tokenizers: eine Quelle oder eine Liste</translation>
    </message>
    <message>
        <source>Vocabulary size</source>
        <translation>Vokabulargröße</translation>
    </message>
    <message>
        <source>the vocabulary size</source>
        <translation>die Vokabulargröße</translation>
    </message>
    <message>
        <source>Pretraining stages</source>
        <translation>Vortrainingsstufen</translation>
    </message>
    <message>
        <source>the preset&apos;s training stages, in order (at least one)</source>
        <translation>die Trainingsstufen der Vorlage, in Reihenfolge (mindestens eine)</translation>
    </message>
    <message>
        <source>Stage name</source>
        <translation>Name der Stufe</translation>
    </message>
    <message>
        <source>the stage&apos;s name</source>
        <translation>der Name der Stufe</translation>
    </message>
    <message>
        <source>Training data</source>
        <translation>Trainingsdaten</translation>
    </message>
    <message>
        <source>the stage&apos;s training data</source>
        <translation>die Trainingsdaten der Stufe</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>Schritte</translation>
    </message>
    <message>
        <source>optimizer steps</source>
        <translation>Optimiererschritte</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>Lernrate</translation>
    </message>
    <message>
        <source>peak learning rate (AdamW, cosine)</source>
        <translation>maximale Lernrate (AdamW, Kosinus)</translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>Sequenzlänge</translation>
    </message>
    <message>
        <source>tokens per sequence</source>
        <translation>Tokens pro Sequenz</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>Batchgröße</translation>
    </message>
    <message>
        <source>rows per batch</source>
        <translation>Zeilen pro Batch</translation>
    </message>
    <message>
        <source>Warm-up</source>
        <translation>Aufwärmphase</translation>
    </message>
    <message>
        <source>linear warm-up steps</source>
        <translation>Schritte der linearen Aufwärmphase</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>Daten</translation>
    </message>
    <message>
        <source>original-domain and new-domain data, evaluation tasks</source>
        <translation>Daten der ursprünglichen und der neuen Domäne, Auswertungsaufgaben</translation>
    </message>
    <message>
        <source>Original domain (forgetting)</source>
        <translation>Ursprüngliche Domäne (Vergessen)</translation>
    </message>
    <message>
        <source>the original domain (forgetting)</source>
        <translation>die ursprüngliche Domäne (Vergessen)</translation>
    </message>
    <message>
        <source>Evaluation</source>
        <translation>Auswertung</translation>
    </message>
    <message>
        <source>forgetting: eval/orig/loss, ppl and drift/cosine</source>
        <translation>Vergessen: eval/orig/loss, ppl und drift/cosine</translation>
    </message>
    <message>
        <source>Replay</source>
        <translation>Replay</translation>
    </message>
    <message>
        <source>original-domain text mixed into training (train.replay)</source>
        <translation>ins Training gemischter Text der ursprünglichen Domäne (train.replay)</translation>
    </message>
    <message>
        <source>Probe set</source>
        <translation>Sondierungsmenge</translation>
    </message>
    <message>
        <source>the general probe set for importance</source>
        <translation>die allgemeine Sondierungsmenge für die Wichtigkeit</translation>
    </message>
    <message>
        <source>Held-out test</source>
        <translation>Zurückgehaltener Test</translation>
    </message>
    <message>
        <source>held-out test set, evaluated at step 0 and the end</source>
        <translation>zurückgehaltene Testmenge, ausgewertet bei Schritt 0 und am Ende</translation>
    </message>
    <message>
        <source>New domain (learning)</source>
        <translation>Neue Domäne (Lernen)</translation>
    </message>
    <message>
        <source>the new domain (learning)</source>
        <translation>die neue Domäne (Lernen)</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>Training</translation>
    </message>
    <message>
        <source>the new-domain training data</source>
        <translation>die Trainingsdaten der neuen Domäne</translation>
    </message>
    <message>
        <source>learning: eval/new/loss and ppl</source>
        <translation>Lernen: eval/new/loss und ppl</translation>
    </message>
    <message>
        <source>Evaluation tasks</source>
        <translation>Auswertungsaufgaben</translation>
    </message>
    <message>
        <source>evaluation tasks, scored at every evaluation</source>
        <translation>Auswertungsaufgaben, bei jeder Auswertung bewertet</translation>
    </message>
    <message>
        <source>Task sequence</source>
        <translation>Aufgabenfolge</translation>
    </message>
    <message>
        <source>a task sequence instead of `data.new.train` (see Task sequences)</source>
        <translation>eine Aufgabenfolge statt `data.new.train` (siehe „Task sequences“)</translation>
    </message>
    <message>
        <source>the task&apos;s name</source>
        <translation>der Name der Aufgabe</translation>
    </message>
    <message>
        <source>the task&apos;s training data</source>
        <translation>die Trainingsdaten der Aufgabe</translation>
    </message>
    <message>
        <source>the task&apos;s evaluation (its name: the step&apos;s)</source>
        <translation>die Auswertung der Aufgabe (ihr Name ist der dieses Folgeschritts)</translation>
    </message>
    <message>
        <source>optimizer steps of this task (0: train.steps)</source>
        <translation>Optimiererschritte dieser Aufgabe (0: train.steps)</translation>
    </message>
    <message>
        <source>Plans</source>
        <translation>Pläne</translation>
    </message>
    <message>
        <source>growth plans, one run each (or `plan`: one)</source>
        <translation>Wachstumspläne, je ein Lauf (oder `plan`: einer)</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>Plan</translation>
    </message>
    <message>
        <source>one growth plan (instead of `plans`)</source>
        <translation>ein Wachstumsplan (statt `plans`)</translation>
    </message>
    <message>
        <source>Optimisation</source>
        <translation>Optimierung</translation>
    </message>
    <message>
        <source>optimisation</source>
        <translation>Optimierung</translation>
    </message>
    <message>
        <source>optimizer steps (per task in a sequence unless the task sets `steps`)</source>
        <translation>Optimiererschritte (in einer Folge pro Aufgabe, sofern die Aufgabe nicht `steps` setzt)</translation>
    </message>
    <message>
        <source>tokens per sequence (packed, no padding; QA items and biographies reordered every epoch)</source>
        <translation>Tokens pro Sequenz (gepackt, ohne Padding; QA-Einträge und Biografien werden in jeder Epoche neu angeordnet)</translation>
    </message>
    <message>
        <source>rows per micro-batch</source>
        <translation>Zeilen pro Mikro-Batch</translation>
    </message>
    <message>
        <source>Batch tokens</source>
        <translation>Batch-Tokens</translation>
    </message>
    <message>
        <source>instead of batch_size: tokens per micro-batch (a multiple of `seq_len`)</source>
        <translation>statt batch_size: Tokens pro Mikro-Batch (ein Vielfaches von `seq_len`)</translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation>Akkumulation</translation>
    </message>
    <message>
        <source>micro-batches per step</source>
        <translation>Mikro-Batches pro Schritt</translation>
    </message>
    <message>
        <source>peak learning rate</source>
        <translation>maximale Lernrate</translation>
    </message>
    <message>
        <source>Schedule</source>
        <translation>Zeitplan</translation>
    </message>
    <message>
        <source>learning-rate schedule (decay to `min_lr_ratio`·lr)</source>
        <translation>Lernraten-Zeitplan (Abfall auf `min_lr_ratio`·lr)</translation>
    </message>
    <message>
        <source>Final LR ratio</source>
        <translation>End-LR-Verhältnis</translation>
    </message>
    <message>
        <source>final learning rate as a fraction of `lr`</source>
        <translation>End-Lernrate als Anteil von `lr`</translation>
    </message>
    <message>
        <source>Weight decay</source>
        <translation>Gewichtsabnahme</translation>
    </message>
    <message>
        <source>AdamW decoupled decay (not on vectors: biases, norms, gates)</source>
        <translation>entkoppelte AdamW-Gewichtsabnahme (nicht auf Vektoren: Biases, Normen, Gates)</translation>
    </message>
    <message>
        <source>Gradient clipping</source>
        <translation>Gradientenbegrenzung</translation>
    </message>
    <message>
        <source>global gradient-norm clipping (0: off)</source>
        <translation>globale Begrenzung der Gradientennorm (0: aus)</translation>
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
        <translation>Replay-Anteil</translation>
    </message>
    <message>
        <source>fraction p of batches drawn from `data.original.replay` (the default of every plan)</source>
        <translation>Anteil p der Batches, die aus `data.original.replay` gezogen werden (Standard für jeden Plan)</translation>
    </message>
    <message>
        <source>Replay mode</source>
        <translation>Replay-Modus</translation>
    </message>
    <message>
        <source>how replay mixes (the default of every plan; a plan&apos;s own `&quot;replay_mode&quot;` overrides it): `batches`, whole original-domain batches with probability p; `rows`, every batch holds ⌊p·B⌋ or ⌈p·B⌉ original-domain rows, the fraction carried over from batch to batch so that the first k batches hold ⌊k·p·B + ½⌋ (long-run fraction exactly p; docs/plans.md, Common keys). A run parameter `train.replay_mode` only where it is `rows`</source>
        <translation>wie Replay gemischt wird (Standard für jeden Plan; das eigene `&quot;replay_mode&quot;` eines Plans hat Vorrang): `batches`, ganze Batches der ursprünglichen Domäne mit Wahrscheinlichkeit p; `rows`, jeder Batch enthält ⌊p·B⌋ oder ⌈p·B⌉ Zeilen der ursprünglichen Domäne, wobei der Bruchteil von Batch zu Batch übertragen wird, sodass die ersten k Batches ⌊k·p·B + ½⌋ enthalten (langfristiger Anteil genau p; docs/plans.md, Common keys). Ein Laufparameter `train.replay_mode` nur dort, wo er `rows` ist</translation>
    </message>
    <message>
        <source>Row shards</source>
        <translation>Zeilenblöcke</translation>
    </message>
    <message>
        <source>blocks of rows each micro-batch is split into (at most `batch_size`): each block&apos;s forward and backward pass runs apart, on the CPU on as many cores at once as OpenBLAS would use (one BLAS thread each), and their gradients are summed in block order; results equal 1 block&apos;s up to float32 rounding and do not depend on the number of cores. Memory: each block holds its share of the activations, and its gradient is a separate copy of the trainable tensors&apos; size until the blocks are summed. 2 on a 2-core machine trains about 1.2× faster than 1 (docs/performance.md)</source>
        <translation>Blöcke von Zeilen, in die jeder Mikro-Batch aufgeteilt wird (höchstens `batch_size`): Vorwärts- und Rückwärtsdurchlauf jedes Blocks laufen getrennt, auf der CPU auf so vielen Kernen gleichzeitig, wie OpenBLAS nutzen würde (je ein BLAS-Thread), und ihre Gradienten werden in Blockreihenfolge summiert; die Ergebnisse entsprechen denen mit 1 Block bis auf float32-Rundung und hängen nicht von der Anzahl der Kerne ab. Speicher: Jeder Block hält seinen Anteil der Aktivierungen, und sein Gradient ist eine separate Kopie in der Größe der trainierbaren Tensoren, bis die Blöcke summiert sind. 2 trainiert auf einer Maschine mit 2 Kernen etwa 1.2× schneller als 1 (docs/performance.md)</translation>
    </message>
    <message>
        <source>Divergence factor</source>
        <translation>Divergenzfaktor</translation>
    </message>
    <message>
        <source>the run ends `diverged` when its next-token loss stays above this × its first logged value for 3 consecutive steps (0: off); a non-finite loss or evaluation metric always does</source>
        <translation>der Lauf endet als `diverged`, wenn sein Next-Token-Verlust 3 aufeinanderfolgende Schritte lang über diesem Wert × seinem ersten protokollierten Wert bleibt (0: aus); ein nicht endlicher Verlust oder Auswertungsmetrikwert beendet ihn immer so</translation>
    </message>
    <message>
        <source>Cross-entropy chunk</source>
        <translation>Kreuzentropie-Chunk</translation>
    </message>
    <message>
        <source>chunked cross-entropy for large vocabularies: the loss is computed from the final hidden states N tokens at a time, each chunk&apos;s gradient formed from its logits at once (the backward pass only scales it), so no more than one chunk of the (tokens × vocabulary) logits and their gradient exists at once and the logits are computed once a step (core/train/chunked_ce.h). `&quot;auto&quot;` chunks only where one micro-batch&apos;s (one row block&apos;s) float32 logits would exceed 256 MiB, in chunks of at most 64 MiB of logits (Qwen3&apos;s 151 936-wide vocabulary at 4 × 256 tokens: 110 tokens a chunk); below that (the tiny presets, every quickstart and paper run) it is the plain path, bit for bit. `0` never chunks; a number of tokens always chunks (the loss then equals the plain one up to float32 rounding). Needs a plain or tied LM head: with SCALE Route&apos;s two-pass head `&quot;auto&quot;` stays plain and a number is refused</source>
        <translation>gechunkte Kreuzentropie für große Vokabulare: Der Verlust wird aus den letzten verborgenen Zuständen jeweils N Tokens auf einmal berechnet, der Gradient jedes Chunks sofort aus seinen Logits gebildet (der Rückwärtsdurchlauf skaliert ihn nur), sodass nie mehr als ein Chunk der (Tokens × Vokabular)-Logits und ihres Gradienten gleichzeitig existiert und die Logits einmal pro Schritt berechnet werden (core/train/chunked_ce.h). `&quot;auto&quot;` teilt nur dort in Chunks auf, wo die float32-Logits eines Mikro-Batches (eines Zeilenblocks) 256 MiB überschreiten würden, in Chunks von höchstens 64 MiB Logits (Qwen3s Vokabular mit 151 936 Einträgen bei 4 × 256 Tokens: 110 Tokens pro Chunk); darunter (die kleinen Vorlagen, jeder Quickstart- und Paper-Lauf) ist es der einfache Pfad, Bit für Bit. `0` teilt nie auf; eine Tokenanzahl teilt immer auf (der Verlust entspricht dann dem einfachen bis auf float32-Rundung). Erfordert einen einfachen oder gekoppelten LM-Kopf: Mit dem Zwei-Durchlauf-Kopf von SCALE Route bleibt `&quot;auto&quot;` beim einfachen Pfad, und eine Zahl wird abgelehnt</translation>
    </message>
    <message>
        <source>Activation checkpointing</source>
        <translation>Aktivierungs-Checkpointing</translation>
    </message>
    <message>
        <source>activation checkpointing per decoder layer: each layer runs without keeping its intermediate tensors, keeps only its input, and runs again in the backward pass (about one more forward pass of compute; memory: every layer&apos;s input plus one layer&apos;s activations instead of all of them). The loss and gradients are those of a run without it, bit for bit (the layers draw no random numbers). Plans whose layers add an auxiliary loss during the forward pass (neutral residues&apos; local losses, LoRAMoE&apos;s load balance) are refused with an error naming the term. The GUI&apos;s experiment editor shows this key and `ce_chunk` on its Training page</source>
        <translation>Aktivierungs-Checkpointing pro Decoder-Schicht: Jede Schicht läuft, ohne ihre Zwischentensoren zu behalten, behält nur ihre Eingabe und läuft im Rückwärtsdurchlauf erneut (etwa ein zusätzlicher Vorwärtsdurchlauf an Rechenaufwand; Speicher: die Eingabe jeder Schicht plus die Aktivierungen einer Schicht statt aller). Verlust und Gradienten sind die eines Laufs ohne Checkpointing, Bit für Bit (die Schichten ziehen keine Zufallszahlen). Pläne, deren Schichten während des Vorwärtsdurchlaufs einen Hilfsverlust hinzufügen (die lokalen Verluste von Neutral Residues, der Load-Balance-Term von LoRAMoE), werden mit einem Fehler abgelehnt, der den Term nennt. Der Experimenteditor der GUI zeigt diesen Schlüssel und `ce_chunk` auf seiner Seite „Training“</translation>
    </message>
    <message>
        <source>evaluation</source>
        <translation>Auswertung</translation>
    </message>
    <message>
        <source>Interval</source>
        <translation>Intervall</translation>
    </message>
    <message>
        <source>steps between evaluations (step 0 and the last step always)</source>
        <translation>Schritte zwischen Auswertungen (Schritt 0 und der letzte Schritt immer)</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Tokens</translation>
    </message>
    <message>
        <source>token budget of each LM evaluation set</source>
        <translation>Token-Budget jeder LM-Auswertungsmenge</translation>
    </message>
    <message>
        <source>rows per evaluation batch</source>
        <translation>Zeilen pro Auswertungs-Batch</translation>
    </message>
    <message>
        <source>Representation drift</source>
        <translation>Repräsentationsdrift</translation>
    </message>
    <message>
        <source>representation drift on `data.original.eval`</source>
        <translation>Repräsentationsdrift auf `data.original.eval`</translation>
    </message>
    <message>
        <source>Max items</source>
        <translation>Max. Einträge</translation>
    </message>
    <message>
        <source>items per MC/QA task</source>
        <translation>Einträge pro MC/QA-Aufgabe</translation>
    </message>
    <message>
        <source>Exact match</source>
        <translation>Exakte Übereinstimmung</translation>
    </message>
    <message>
        <source>greedy exact match for QA tasks</source>
        <translation>exakte Übereinstimmung mit gieriger Dekodierung für QA-Aufgaben</translation>
    </message>
    <message>
        <source>Test sets</source>
        <translation>Testmengen</translation>
    </message>
    <message>
        <source>when the held-out test sets (`data.*.test`, tasks&apos; `test`) are evaluated: `&quot;ends&quot;` at step 0 and the end, `&quot;every&quot;` at every evaluation (needed by `compare --at` and the trade-off fronts, which choose a rate and a step on the validation sets and report the test value of that same run and step)</source>
        <translation>wann die zurückgehaltenen Testmengen (`data.*.test`, `test` der Aufgaben) ausgewertet werden: `&quot;ends&quot;` bei Schritt 0 und am Ende, `&quot;every&quot;` bei jeder Auswertung (erforderlich für `compare --at` und die Zielkonflikt-Fronten, die auf den Validierungsmengen eine Rate und einen Schritt wählen und den Testwert desselben Laufs und Schritts angeben)</translation>
    </message>
    <message>
        <source>Importance probes</source>
        <translation>Wichtigkeitssondierungen</translation>
    </message>
    <message>
        <source>how the importance probes run (layer policies, ADEPT&apos;s and EWC&apos;s Fisher); the same options as `growbench-cli probe`</source>
        <translation>wie die Wichtigkeitssondierungen laufen (Schichtrichtlinien, Fisher-Information von ADEPT und EWC); dieselben Optionen wie `growbench-cli probe`</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>Methode</translation>
    </message>
    <message>
        <source>the default probe method (a policy or adept.method names its own)</source>
        <translation>die Standard-Sondierungsmethode (eine Richtlinie oder adept.method nennt ihre eigene)</translation>
    </message>
    <message>
        <source>tokens of the probe set</source>
        <translation>Tokens der Sondierungsmenge</translation>
    </message>
    <message>
        <source>rows per probe batch</source>
        <translation>Zeilen pro Sondierungs-Batch</translation>
    </message>
    <message>
        <source>tokens per probe sequence</source>
        <translation>Tokens pro Sondierungssequenz</translation>
    </message>
    <message>
        <source>Masking mode</source>
        <translation>Maskierungsmodus</translation>
    </message>
    <message>
        <source>masking: reuse the prefix before the masked layer, or run it whole</source>
        <translation>Maskierung: das Präfix vor der maskierten Schicht wiederverwenden oder das Modell vollständig durchlaufen</translation>
    </message>
    <message>
        <source>Fisher mode</source>
        <translation>Fisher-Modus</translation>
    </message>
    <message>
        <source>Fisher: squared gradients per sequence or per batch</source>
        <translation>Fisher: quadrierte Gradienten pro Sequenz oder pro Batch</translation>
    </message>
    <message>
        <source>Fine-tuning steps</source>
        <translation>Feinabstimmungsschritte</translation>
    </message>
    <message>
        <source>update-magnitude and effective-rank: training steps</source>
        <translation>update-magnitude und effective-rank: Trainingsschritte</translation>
    </message>
    <message>
        <source>Fine-tuning LR</source>
        <translation>Feinabstimmungs-LR</translation>
    </message>
    <message>
        <source>update-magnitude and effective-rank: learning rate</source>
        <translation>update-magnitude und effective-rank: Lernrate</translation>
    </message>
    <message>
        <source>Snapshot every</source>
        <translation>Schnappschuss alle</translation>
    </message>
    <message>
        <source>effective-rank: steps between snapshots (0: steps / 5)</source>
        <translation>effective-rank: Schritte zwischen Schnappschüssen (0: steps / 5)</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>Referenz</translation>
    </message>
    <message>
        <source>effective-rank: ΔW against the previous snapshot or the base weights</source>
        <translation>effective-rank: ΔW gegenüber dem vorigen Schnappschuss oder den Basisgewichten</translation>
    </message>
    <message>
        <source>the gradient probes (taylor, taylor-abs, taylor-code, fisher): activation checkpointing per decoder layer, as train.checkpointing (the same numbers, about one more forward pass, the activations of one layer at a time)</source>
        <translation>die Gradienten-Proben (taylor, taylor-abs, taylor-code, fisher): Aktivierungs-Checkpointing je Decoder-Schicht, wie train.checkpointing (dieselben Zahlen, etwa ein Vorwärtsdurchlauf mehr, die Aktivierungen jeweils einer Schicht)</translation>
    </message>
    <message>
        <source>ADEPT defaults</source>
        <translation>ADEPT-Standardwerte</translation>
    </message>
    <message>
        <source>defaults for ADEPT plans&apos; stage 2 (earlier specs; the plan&apos;s keys win)</source>
        <translation>Standardwerte für Stufe 2 der ADEPT-Pläne (ältere Spezifikationen; die Schlüssel des Plans haben Vorrang)</translation>
    </message>
    <message>
        <source>Unit-wise learning rates</source>
        <translation>Lernraten pro Einheit</translation>
    </message>
    <message>
        <source>unit-wise learning rates (the plans&apos; unit_lr)</source>
        <translation>Lernraten pro Einheit (unit_lr der Pläne)</translation>
    </message>
    <message>
        <source>T_update</source>
        <translation>T_update</translation>
    </message>
    <message>
        <source>steps between unit-rate assignments</source>
        <translation>Schritte zwischen Zuweisungen der Einheiten-Lernraten</translation>
    </message>
    <message>
        <source>Unit importance</source>
        <translation>Einheitenwichtigkeit</translation>
    </message>
    <message>
        <source>unit importance (the plans&apos; unit_importance)</source>
        <translation>Einheitenwichtigkeit (unit_importance der Pläne)</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>Checkpoints</translation>
    </message>
    <message>
        <source>checkpoints</source>
        <translation>Checkpoints</translation>
    </message>
    <message>
        <source>a checkpoint every N steps (0: at the end and on cancel)</source>
        <translation>ein Checkpoint alle N Schritte (0: am Ende und beim Abbrechen)</translation>
    </message>
    <message>
        <source>Forgetting guard</source>
        <translation>Vergessenswächter</translation>
    </message>
    <message>
        <source>a forgetting guard per run</source>
        <translation>ein Vergessenswächter pro Lauf</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>Metrik</translation>
    </message>
    <message>
        <source>the evaluation metric compared with its step-0 value</source>
        <translation>die Auswertungsmetrik, verglichen mit ihrem Wert bei Schritt 0</translation>
    </message>
    <message>
        <source>Budget</source>
        <translation>Budget</translation>
    </message>
    <message>
        <source>the largest relative change in the bad direction</source>
        <translation>die größte relative Änderung in die ungünstige Richtung</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>stop the run, or roll back to the last evaluation within the budget and finish from there</source>
        <translation>den Lauf anhalten oder zur letzten Auswertung innerhalb des Budgets zurückkehren und von dort aus zu Ende führen</translation>
    </message>
    <message>
        <source>Variant</source>
        <translation>Variante</translation>
    </message>
    <message>
        <source>the growth variant (docs/plans.md has each variant&apos;s own keys)</source>
        <translation>die Wachstumsvariante (die eigenen Schlüssel jeder Variante stehen in docs/plans.md)</translation>
    </message>
    <message>
        <source>the plan&apos;s label in run names and tables</source>
        <translation>die Bezeichnung des Plans in Laufnamen und Tabellen</translation>
    </message>
    <message>
        <source>Own replay fraction</source>
        <translation>Eigener Replay-Anteil</translation>
    </message>
    <message>
        <source>Own replay mode</source>
        <translation>Eigener Replay-Modus</translation>
    </message>
    <message>
        <source>EWC penalty</source>
        <translation>EWC-Strafterm</translation>
    </message>
    <message>
        <source>EWC λ</source>
        <translation>EWC λ</translation>
    </message>
    <message>
        <source>the strength of the penalty</source>
        <translation>die Stärke des Strafterms</translation>
    </message>
    <message>
        <source>EWC mode</source>
        <translation>EWC-Modus</translation>
    </message>
    <message>
        <source>per-task keeps every task&apos;s Fisher; online one decayed Fisher</source>
        <translation>per-task behält die Fisher-Information jeder Aufgabe; online eine abklingende Fisher-Information</translation>
    </message>
    <message>
        <source>EWC γ</source>
        <translation>EWC γ</translation>
    </message>
    <message>
        <source>the decay of the online Fisher</source>
        <translation>das Abklingen der Online-Fisher-Information</translation>
    </message>
    <message>
        <source>PEFT adapter</source>
        <translation>PEFT-Adapter</translation>
    </message>
    <message>
        <source>a PEFT LoRA adapter folder: rank, alpha, targets and layers come from it</source>
        <translation>ein PEFT-LoRA-Adapterordner: Rang, Alpha, Ziele und Schichten werden daraus übernommen</translation>
    </message>
    <message>
        <source>this plan&apos;s seeds (replace the top-level seeds)</source>
        <translation>die Seeds dieses Plans (ersetzen die Seeds der obersten Ebene)</translation>
    </message>
    <message>
        <source>this plan&apos;s sweep: train.* keys and its parameters → values (replaces the top-level sweep)</source>
        <translation>der Sweep dieses Plans: train.*-Schlüssel und seine Parameter → Werte (ersetzt den Sweep der obersten Ebene)</translation>
    </message>
    <message>
        <source>grid, or random draws of `samples` points</source>
        <translation>Raster oder zufällige Ziehung von `samples` Punkten</translation>
    </message>
    <message>
        <source>random points drawn for this plan</source>
        <translation>für diesen Plan zufällig gezogene Punkte</translation>
    </message>
    <message>
        <source>Train overrides</source>
        <translation>Trainingsüberschreibungen</translation>
    </message>
    <message>
        <source>fixed train overrides for this plan (the train keys a sweep may set; a sweep point of the same key wins)</source>
        <translation>feste Überschreibungen von train-Schlüsseln für diesen Plan (die train-Schlüssel, die ein Sweep setzen darf; ein Sweep-Punkt mit demselben Schlüssel hat Vorrang)</translation>
    </message>
    <message>
        <source>a note kept with the plan</source>
        <translation>eine Notiz, die mit dem Plan gespeichert wird</translation>
    </message>
    <message>
        <source>File or folder</source>
        <translation>Datei oder Ordner</translation>
    </message>
    <message>
        <source>a text file or folder (text corpus)</source>
        <translation>eine Textdatei oder ein Ordner (Textkorpus)</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>Format</translation>
    </message>
    <message>
        <source>how the corpus is read</source>
        <translation>wie das Korpus gelesen wird</translation>
    </message>
    <message>
        <source>JSONL field</source>
        <translation>JSONL-Feld</translation>
    </message>
    <message>
        <source>JSONL: the field holding the text</source>
        <translation>JSONL: das Feld mit dem Text</translation>
    </message>
    <message>
        <source>Document unit</source>
        <translation>Dokumenteinheit</translation>
    </message>
    <message>
        <source>text files: what one document is</source>
        <translation>Textdateien: was ein Dokument ist</translation>
    </message>
    <message>
        <source>Recursive</source>
        <translation>Rekursiv</translation>
    </message>
    <message>
        <source>folders: descend into sub-folders</source>
        <translation>Ordner: Unterordner einbeziehen</translation>
    </message>
    <message>
        <source>Strip overstrike</source>
        <translation>Überdruckzeichen entfernen</translation>
    </message>
    <message>
        <source>fortunes: remove &quot;x\b&quot; overstrike pairs</source>
        <translation>Fortunes: Überdruckpaare &quot;x\b&quot; entfernen</translation>
    </message>
    <message>
        <source>Minimum characters</source>
        <translation>Mindestzeichenzahl</translation>
    </message>
    <message>
        <source>drop documents with fewer non-blank bytes</source>
        <translation>Dokumente mit weniger Nicht-Leerraum-Bytes verwerfen</translation>
    </message>
    <message>
        <source>Part</source>
        <translation>Teil</translation>
    </message>
    <message>
        <source>a document-level split seeded by the spec&apos;s seed; validation and test are the two halves of the held-out part</source>
        <translation>eine Aufteilung auf Dokumentebene mit dem Seed der Spezifikation; validation und test sind die beiden Hälften des zurückgehaltenen Teils</translation>
    </message>
    <message>
        <source>Held-out fraction</source>
        <translation>Zurückgehaltener Anteil</translation>
    </message>
    <message>
        <source>the held-out fraction of the documents</source>
        <translation>der zurückgehaltene Anteil der Dokumente</translation>
    </message>
    <message>
        <source>QA file</source>
        <translation>QA-Datei</translation>
    </message>
    <message>
        <source>a QA JSONL file ({&quot;question&quot;, &quot;answer&quot;} lines)</source>
        <translation>eine QA-JSONL-Datei (Zeilen {&quot;question&quot;, &quot;answer&quot;})</translation>
    </message>
    <message>
        <source>Loss on the answer only</source>
        <translation>Verlust nur auf der Antwort</translation>
    </message>
    <message>
        <source>QA: the loss on the answer only</source>
        <translation>QA: Verlust nur auf der Antwort</translation>
    </message>
    <message>
        <source>Biography options</source>
        <translation>Biografie-Optionen</translation>
    </message>
    <message>
        <source>the biography benchmark&apos;s options (SCALE §5.1, data/biography.h)</source>
        <translation>die Optionen des Biografie-Benchmarks (SCALE §5.1, data/biography.h)</translation>
    </message>
    <message>
        <source>Generator seed</source>
        <translation>Generator-Seed</translation>
    </message>
    <message>
        <source>the generator&apos;s seed</source>
        <translation>der Seed des Generators</translation>
    </message>
    <message>
        <source>People</source>
        <translation>Personen</translation>
    </message>
    <message>
        <source>people generated</source>
        <translation>erzeugte Personen</translation>
    </message>
    <message>
        <source>Biographies per person</source>
        <translation>Biografien pro Person</translation>
    </message>
    <message>
        <source>biographies per person</source>
        <translation>Biografien pro Person</translation>
    </message>
    <message>
        <source>Pretrain fraction</source>
        <translation>Vortrainingsanteil</translation>
    </message>
    <message>
        <source>people with biographies in pretraining</source>
        <translation>Personen mit Biografien im Vortraining</translation>
    </message>
    <message>
        <source>Task 0 train fraction</source>
        <translation>Trainingsanteil Aufgabe 0</translation>
    </message>
    <message>
        <source>of those, people whose QA trains task 0</source>
        <translation>davon Personen, deren QA Aufgabe 0 trainiert</translation>
    </message>
    <message>
        <source>Task 1 fraction</source>
        <translation>Anteil Aufgabe 1</translation>
    </message>
    <message>
        <source>new people for task 1, a fraction of num_people</source>
        <translation>neue Personen für Aufgabe 1, als Anteil von num_people</translation>
    </message>
    <message>
        <source>the part of the benchmark</source>
        <translation>der Teil des Benchmarks</translation>
    </message>
    <message>
        <source>Max documents</source>
        <translation>Max. Dokumente</translation>
    </message>
    <message>
        <source>at most this many documents (-1: all)</source>
        <translation>höchstens so viele Dokumente (-1: alle)</translation>
    </message>
    <message>
        <source>Max tokens</source>
        <translation>Max. Tokens</translation>
    </message>
    <message>
        <source>at most this many tokens (-1: all)</source>
        <translation>höchstens so viele Tokens (-1: alle)</translation>
    </message>
    <message>
        <source>Task name</source>
        <translation>Aufgabenname</translation>
    </message>
    <message>
        <source>names its metrics eval/&lt;name&gt;/...; not orig, new, drift, op or bwt</source>
        <translation>benennt ihre Metriken eval/&lt;name&gt;/...; nicht orig, new, drift, op oder bwt</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>lm: loss and perplexity; mc: multiple choice; qa: answer accuracy</source>
        <translation>lm: Verlust und Perplexität; mc: Multiple Choice; qa: Antwortgenauigkeit</translation>
    </message>
    <message>
        <source>language modelling (lm)</source>
        <translation>Sprachmodellierung (lm)</translation>
    </message>
    <message>
        <source>multiple choice (mc)</source>
        <translation>Multiple Choice (mc)</translation>
    </message>
    <message>
        <source>question answering (qa)</source>
        <translation>Fragebeantwortung (qa)</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>Quelle</translation>
    </message>
    <message>
        <source>the task&apos;s data (lm: any text source; qa: a QA or biography source)</source>
        <translation>die Daten der Aufgabe (lm: beliebige Textquelle; qa: eine QA- oder Biografie-Quelle)</translation>
    </message>
    <message>
        <source>File</source>
        <translation>Datei</translation>
    </message>
    <message>
        <source>mc: a JSONL file of items; lm and qa: the source&apos;s path</source>
        <translation>mc: eine JSONL-Datei mit Einträgen; lm und qa: der Pfad der Quelle</translation>
    </message>
    <message>
        <source>Cloze items</source>
        <translation>Lückentext-Einträge</translation>
    </message>
    <message>
        <source>a multiple-choice task built at run time from a corpus (data/cloze.h)</source>
        <translation>eine Multiple-Choice-Aufgabe, zur Laufzeit aus einem Korpus erzeugt (data/cloze.h)</translation>
    </message>
    <message>
        <source>Corpus</source>
        <translation>Korpus</translation>
    </message>
    <message>
        <source>the corpus to cut passages from</source>
        <translation>das Korpus, aus dem Passagen ausgeschnitten werden</translation>
    </message>
    <message>
        <source>Items</source>
        <translation>Einträge</translation>
    </message>
    <message>
        <source>at most this many items</source>
        <translation>höchstens so viele Einträge</translation>
    </message>
    <message>
        <source>Choices</source>
        <translation>Auswahlmöglichkeiten</translation>
    </message>
    <message>
        <source>the true continuation and choices − 1 distractors</source>
        <translation>die richtige Fortsetzung und choices − 1 Distraktoren</translation>
    </message>
    <message>
        <source>the items&apos; seed</source>
        <translation>der Seed der Einträge</translation>
    </message>
    <message>
        <source>Min context words</source>
        <translation>Min. Kontextwörter</translation>
    </message>
    <message>
        <source>words of context, at least</source>
        <translation>Wörter Kontext, mindestens</translation>
    </message>
    <message>
        <source>Max context words</source>
        <translation>Max. Kontextwörter</translation>
    </message>
    <message>
        <source>words of context, at most</source>
        <translation>Wörter Kontext, höchstens</translation>
    </message>
    <message>
        <source>Min continuation words</source>
        <translation>Min. Fortsetzungswörter</translation>
    </message>
    <message>
        <source>words of each continuation, at least</source>
        <translation>Wörter jeder Fortsetzung, mindestens</translation>
    </message>
    <message>
        <source>Max continuation words</source>
        <translation>Max. Fortsetzungswörter</translation>
    </message>
    <message>
        <source>words of each continuation, at most</source>
        <translation>Wörter jeder Fortsetzung, höchstens</translation>
    </message>
    <message>
        <source>Distractors</source>
        <translation>Distraktoren</translation>
    </message>
    <message>
        <source>distractors from other passages or the true continuation&apos;s words shuffled</source>
        <translation>Distraktoren aus anderen Passagen oder die gemischten Wörter der richtigen Fortsetzung</translation>
    </message>
    <message>
        <source>items evaluated (-1: eval.max_items)</source>
        <translation>ausgewertete Einträge (-1: eval.max_items)</translation>
    </message>
    <message>
        <source>the held-out test version (the same kind), evaluated at step 0 and the end as test/&lt;name&gt;/...</source>
        <translation>die zurückgehaltene Testversion (derselben Art), ausgewertet bei Schritt 0 und am Ende als test/&lt;name&gt;/...</translation>
    </message>
    <message>
        <source>Test source</source>
        <translation>Testquelle</translation>
    </message>
    <message>
        <source>as the task&apos;s source</source>
        <translation>wie die Quelle der Aufgabe</translation>
    </message>
    <message>
        <source>Test file</source>
        <translation>Testdatei</translation>
    </message>
    <message>
        <source>as the task&apos;s path</source>
        <translation>wie der Pfad der Aufgabe</translation>
    </message>
    <message>
        <source>Test max items</source>
        <translation>Max. Testeinträge</translation>
    </message>
    <message>
        <source>items evaluated</source>
        <translation>ausgewertete Einträge</translation>
    </message>
    <message>
        <source>fraction p of original-domain batches for this plan (overrides train.replay; 0 is valid: for neutral residues the local loss then never applies)</source>
        <translation>Anteil p der Batches aus der Ursprungsdomäne für diesen Plan (ersetzt train.replay; 0 ist zulässig: für Neutral Residues wirkt der lokale Verlust dann nie)</translation>
    </message>
    <message>
        <source>how replay mixes for this plan (overrides train.replay_mode): batches, each batch original-domain with probability p; rows, round(p · batch size) original-domain rows in every batch (the fraction carried over), so neutral residues&apos; local loss applies at every step</source>
        <translation>wie Replay für diesen Plan gemischt wird (ersetzt train.replay_mode): batches, jeder Batch stammt mit Wahrscheinlichkeit p aus der Ursprungsdomäne; rows, round(p · Batchgröße) Zeilen der Ursprungsdomäne in jedem Batch (der Bruchteil wird übertragen), sodass der lokale Verlust von Neutral Residues bei jedem Schritt wirkt</translation>
    </message>
    <message>
        <source>whole batches</source>
        <translation>ganze Batches</translation>
    </message>
    <message>
        <source>rows in every batch</source>
        <translation>Zeilen in jedem Batch</translation>
    </message>
    <message>
        <source>an EWC penalty λ/2 · Σ F_i (θ_i − θ*_i)² on the plan&apos;s trainable weights; in a task sequence the Fisher is estimated again after each task (docs/plans.md, Common keys)</source>
        <translation>ein EWC-Strafterm λ/2 · Σ F_i (θ_i − θ*_i)² auf den trainierbaren Gewichten des Plans; in einer Aufgabenfolge wird die Fisher-Information nach jeder Aufgabe neu geschätzt (docs/plans.md, „Common keys“)</translation>
    </message>
    <message>
        <source>per task</source>
        <translation>pro Aufgabe</translation>
    </message>
    <message>
        <source>online</source>
        <translation>online</translation>
    </message>
</context>
<context>
    <name>gb::gui::AboutDialog</name>
    <message>
        <source>About GrowBench</source>
        <translation>Über GrowBench</translation>
    </message>
    <message>
        <source>unknown (growbench-cli did not say)</source>
        <translation>unbekannt (growbench-cli hat es nicht angegeben)</translation>
    </message>
    <message>
        <source>unknown: %1</source>
        <translation>unbekannt: %1</translation>
    </message>
    <message>
        <source>asking growbench-cli…</source>
        <translation>frage growbench-cli…</translation>
    </message>
    <message>
        <source>&lt;h3&gt;GrowBench %1&lt;/h3&gt;&lt;p&gt;A workbench for growing pretrained language models without catastrophic forgetting: importance probes, growth plans, runs, and the forgetting–learning trade-off.&lt;/p&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;Qt&lt;/td&gt;&lt;td&gt;%2 (built with %3)&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;QCustomPlot&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;LibTorch&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;growbench-cli&lt;/td&gt;&lt;td&gt;%6&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</source>
        <translation>&lt;h3&gt;GrowBench %1&lt;/h3&gt;&lt;p&gt;Eine Werkbank zum Erweitern vortrainierter Sprachmodelle ohne katastrophales Vergessen: Wichtigkeitssondierungen, Wachstumspläne, Läufe und der Zielkonflikt zwischen Vergessen und Lernen.&lt;/p&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;Qt&lt;/td&gt;&lt;td&gt;%2 (erstellt mit %3)&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;QCustomPlot&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;LibTorch&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;growbench-cli&lt;/td&gt;&lt;td&gt;%6&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</translation>
    </message>
</context>
<context>
    <name>gb::gui::ArchitectureModel</name>
    <message>
        <source>%1, frozen</source>
        <translation>%1, eingefroren</translation>
    </message>
    <message>
        <source>Embeddings, final norm, head</source>
        <translation>Einbettungen, letzte Normierung, Ausgabekopf</translation>
    </message>
    <message>
        <source>Layer %1</source>
        <translation>Schicht %1</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>Form</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>Parameter</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>Anteil</translation>
    </message>
</context>
<context>
    <name>gb::gui::CliJob</name>
    <message>
        <source>A growbench-cli job is already running.</source>
        <translation>Ein growbench-cli-Auftrag läuft bereits.</translation>
    </message>
    <message>
        <source>growbench-cli was not found next to growbench or in PATH. Set GROWBENCH_CLI to its path.</source>
        <translation>growbench-cli wurde weder neben growbench noch im PATH gefunden. Setzen Sie GROWBENCH_CLI auf seinen Pfad.</translation>
    </message>
    <message>
        <source>Could not start %1: %2</source>
        <translation>%1 konnte nicht gestartet werden: %2</translation>
    </message>
</context>
<context>
    <name>gb::gui::CompareView</name>
    <message numerus="yes">
        <source>Deleted %n run(s) and %1 checkpoint(s).</source>
        <translation>
            <numerusform>%n Lauf und %1 Checkpoint(s) gelöscht.</numerusform>
            <numerusform>%n Läufe und %1 Checkpoint(s) gelöscht.</numerusform>
        </translation>
    </message>
    <message>
        <source>Filter by name, variant, layers or tag</source>
        <translation>Nach Name, Variante, Schichten oder Tag filtern</translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation>Alle Status</translation>
    </message>
    <message>
        <source>All tags</source>
        <translation>Alle Tags</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>CSV exportieren…</translation>
    </message>
    <message>
        <source>Save the table as shown (filtered and sorted) as CSV</source>
        <translation>Die Tabelle wie angezeigt (gefiltert und sortiert) als CSV speichern</translation>
    </message>
    <message>
        <source>Select runs to overlay them in Curves; two runs can be diffed.</source>
        <translation>Wählen Sie Läufe aus, um sie unter „Kurven“ zu überlagern; zwei Läufe lassen sich vergleichen.</translation>
    </message>
    <message>
        <source>Diff specs</source>
        <translation>Spezifikationen vergleichen</translation>
    </message>
    <message>
        <source>Side-by-side diff of the two selected runs&apos; experiment specs</source>
        <translation>Experimentspezifikationen der beiden ausgewählten Läufe nebeneinander vergleichen</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>Löschen…</translation>
    </message>
    <message>
        <source>Delete the selected runs, their metrics and checkpoints</source>
        <translation>Die ausgewählten Läufe samt Metriken und Checkpoints löschen</translation>
    </message>
    <message>
        <source>comma-separated tags</source>
        <translation>kommagetrennte Tags</translation>
    </message>
    <message>
        <source>Tags:</source>
        <translation>Tags:</translation>
    </message>
    <message>
        <source>Notes on this run</source>
        <translation>Notizen zu diesem Lauf</translation>
    </message>
    <message>
        <source>Notes:</source>
        <translation>Notizen:</translation>
    </message>
    <message>
        <source>Save tags and notes</source>
        <translation>Tags und Notizen speichern</translation>
    </message>
    <message>
        <source>Export table</source>
        <translation>Tabelle exportieren</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>Wrote %1.</source>
        <translation>%1 geschrieben.</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>Export fehlgeschlagen</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) selected: overlaid in Curves.</source>
        <translation>
            <numerusform>%n Lauf ausgewählt: unter „Kurven“ überlagert.</numerusform>
            <numerusform>%n Läufe ausgewählt: unter „Kurven“ überlagert.</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>%1 konnte nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation>#%1 %2</translation>
    </message>
    <message>
        <source>Spec diff: run %1 and run %2</source>
        <translation>Spezifikationsvergleich: Lauf %1 und Lauf %2</translation>
    </message>
    <message>
        <source>Only differences (%1)</source>
        <translation>Nur Unterschiede (%1)</translation>
    </message>
    <message>
        <source>Run %1 is still running: cancel it first.</source>
        <translation>Lauf %1 läuft noch: brechen Sie ihn zuerst ab.</translation>
    </message>
    <message>
        <source>Delete runs</source>
        <translation>Läufe löschen</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n run(s) with their metrics and checkpoints? This cannot be undone.</source>
        <translation>
            <numerusform>%n Lauf samt Metriken und Checkpoints löschen? Dies kann nicht rückgängig gemacht werden.</numerusform>
            <numerusform>%n Läufe samt Metriken und Checkpoints löschen? Dies kann nicht rückgängig gemacht werden.</numerusform>
        </translation>
    </message>
    <message>
        <source>All runs</source>
        <translation>Alle Läufe</translation>
    </message>
    <message>
        <source>Groups: seeds and sweeps</source>
        <translation>Gruppen: Seeds und Sweeps</translation>
    </message>
</context>
<context>
    <name>gb::gui::ConfigTableModel</name>
    <message>
        <source>Key</source>
        <translation>Schlüssel</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
</context>
<context>
    <name>gb::gui::CurvesView</name>
    <message>
        <source>Forgetting:</source>
        <translation>Vergessen:</translation>
    </message>
    <message>
        <source>Original-domain metric (forgetting)</source>
        <translation>Metrik der Ursprungsdomäne (Vergessen)</translation>
    </message>
    <message>
        <source>Learning:</source>
        <translation>Lernen:</translation>
    </message>
    <message>
        <source>New-domain metric or task accuracy (learning)</source>
        <translation>Metrik der neuen Domäne oder Aufgabengenauigkeit (Lernen)</translation>
    </message>
    <message>
        <source>Smoothing:</source>
        <translation>Glättung:</translation>
    </message>
    <message>
        <source>Exponential moving average weight of the curves (0 = raw)</source>
        <translation>Gewicht des exponentiellen gleitenden Mittelwerts der Kurven (0 = Rohwerte)</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>Logarithmische Skala</translation>
    </message>
    <message>
        <source>Export plot…</source>
        <translation>Diagramm exportieren…</translation>
    </message>
    <message>
        <source>Save the plot shown as PNG, SVG or PDF</source>
        <translation>Das angezeigte Diagramm als PNG, SVG oder PDF speichern</translation>
    </message>
    <message>
        <source>No runs selected: select runs in Compare or Runs.</source>
        <translation>Keine Läufe ausgewählt: wählen Sie Läufe unter „Vergleichen“ oder „Läufe“ aus.</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>Forgetting and learning</source>
        <translation>Vergessen und Lernen</translation>
    </message>
    <message>
        <source>Trade-off</source>
        <translation>Zielkonflikt</translation>
    </message>
    <message>
        <source>Run:</source>
        <translation>Lauf:</translation>
    </message>
    <message>
        <source>After training on task</source>
        <translation>Nach dem Training auf Aufgabe</translation>
    </message>
    <message>
        <source>Evaluated on task</source>
        <translation>Ausgewertet auf Aufgabe</translation>
    </message>
    <message>
        <source>Task matrix</source>
        <translation>Aufgabenmatrix</translation>
    </message>
    <message>
        <source>Export plot</source>
        <translation>Diagramm exportieren</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) overlaid.</source>
        <translation>
            <numerusform>%n Lauf überlagert.</numerusform>
            <numerusform>%n Läufe überlagert.</numerusform>
        </translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>Lauf %1</translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation>#%1 %2</translation>
    </message>
    <message>
        <source>Forgetting</source>
        <translation>Vergessen</translation>
    </message>
    <message>
        <source>Learning</source>
        <translation>Lernen</translation>
    </message>
    <message>
        <source>Pareto frontier of final points</source>
        <translation>Pareto-Front der Endpunkte</translation>
    </message>
    <message>
        <source>No task sequence in this run</source>
        <translation>Dieser Lauf hat keine Aufgabenfolge</translation>
    </message>
    <message>
        <source>Task sequences (spec key “sequence”) record an accuracy matrix R: after each task, every task is evaluated.</source>
        <translation>Aufgabenfolgen (Spezifikationsschlüssel „sequence“) erfassen eine Genauigkeitsmatrix R: nach jeder Aufgabe werden alle Aufgaben ausgewertet.</translation>
    </message>
    <message>
        <source>T%1</source>
        <translation>T%1</translation>
    </message>
    <message>
        <source>accuracy</source>
        <translation>Genauigkeit</translation>
    </message>
    <message>
        <source>R = −loss (nats)</source>
        <translation>R = −Verlust (nats)</translation>
    </message>
    <message>
        <source>accuracy, or −loss (nats) for lm tasks</source>
        <translation>Genauigkeit, oder −Verlust (nats) für lm-Aufgaben</translation>
    </message>
    <message>
        <source>Logarithmic metric axes (the curves&apos; y axes; both trade-off axes when it shows final values)</source>
        <translation>Logarithmische Metrik-Achsen (die y-Achsen der Kurven; beide Achsen des Zielkonflikts, wenn er Endwerte zeigt)</translation>
    </message>
    <message>
        <source>Trade-off:</source>
        <translation>Zielkonflikt:</translation>
    </message>
    <message>
        <source>final values</source>
        <translation>Endwerte</translation>
    </message>
    <message>
        <source>change from step 0 (%)</source>
        <translation>Änderung seit Schritt 0 (%)</translation>
    </message>
    <message>
        <source>Final values of the two metrics (absolute; relative changes of perplexity saturate), or their relative change from step 0</source>
        <translation>Endwerte der beiden Metriken (absolut; relative Änderungen der Perplexität sättigen), oder ihre relative Änderung seit Schritt 0</translation>
    </message>
    <message>
        <source>These runs were not evaluated on the same sets; their curves are not directly comparable:
%1</source>
        <translation>Diese Läufe wurden nicht auf denselben Datensätzen ausgewertet; ihre Kurven sind nicht direkt vergleichbar:
%1</translation>
    </message>
    <message>
        <source>#%1 %2 (%3)</source>
        <translation>#%1 %2 (%3)</translation>
    </message>
    <message>
        <source>Forgetting: change of %1 from step 0 (%, right = more forgetting)</source>
        <translation>Vergessen: Änderung von %1 seit Schritt 0 (%, rechts = mehr Vergessen)</translation>
    </message>
    <message>
        <source>Learning: improvement of %1 from step 0 (%)</source>
        <translation>Lernen: Verbesserung von %1 seit Schritt 0 (%)</translation>
    </message>
    <message>
        <source>Forgetting: %1 (final value)</source>
        <translation>Vergessen: %1 (Endwert)</translation>
    </message>
    <message>
        <source>Learning: %1 (final value)</source>
        <translation>Lernen: %1 (Endwert)</translation>
    </message>
    <message>
        <source>%1 (partial: step %2)</source>
        <translation>%1 (unvollständig: Schritt %2)</translation>
    </message>
    <message>
        <source>Not in the trade-off (no evaluation after step 0): %1</source>
        <translation>Nicht im Zielkonflikt (keine Auswertung nach Schritt 0): %1</translation>
    </message>
    <message>
        <source>OP (mean accuracy after the last task) = %1 · BWT (mean change of the earlier tasks&apos; accuracy) = %2</source>
        <translation>OP (mittlere Genauigkeit nach der letzten Aufgabe) = %1 · BWT (mittlere Änderung der Genauigkeit der früheren Aufgaben) = %2</translation>
    </message>
    <message>
        <source>OP (mean −loss after the last task, nats) = %1 · BWT (mean change of the earlier tasks&apos; −loss, nats; negative: their loss rose) = %2</source>
        <translation>OP (mittlerer −Verlust nach der letzten Aufgabe, nats) = %1 · BWT (mittlere Änderung des −Verlusts der früheren Aufgaben, nats; negativ: ihr Verlust stieg) = %2</translation>
    </message>
    <message>
        <source>OP (mean R after the last task: accuracy, or −loss for lm tasks) = %1 · BWT (mean change of the earlier tasks&apos; R) = %2</source>
        <translation>OP (mittleres R nach der letzten Aufgabe: Genauigkeit, bei lm-Aufgaben −Verlust) = %1 · BWT (mittlere Änderung des R der früheren Aufgaben) = %2</translation>
    </message>
</context>
<context>
    <name>gb::gui::ExperimentEditor</name>
    <message>
        <source>task %1</source>
        <translation>Aufgabe %1</translation>
    </message>
    <message>
        <source>biography %1</source>
        <translation>Biografie %1</translation>
    </message>
    <message>
        <source>source %1</source>
        <translation>Quelle %1</translation>
    </message>
    <message>
        <source>New</source>
        <translation>Neu</translation>
    </message>
    <message>
        <source>A new spec for the model open in the Model view</source>
        <translation>Eine neue Spezifikation für das in der Modellansicht geöffnete Modell</translation>
    </message>
    <message>
        <source>Open…</source>
        <translation>Öffnen…</translation>
    </message>
    <message>
        <source>Load an experiment spec (JSON) into the editor</source>
        <translation>Eine Experimentspezifikation (JSON) in den Editor laden</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Speichern</translation>
    </message>
    <message>
        <source>Save as…</source>
        <translation>Speichern unter…</translation>
    </message>
    <message>
        <source>From selected run</source>
        <translation>Aus ausgewähltem Lauf</translation>
    </message>
    <message>
        <source>Start from the spec of the run selected in the Runs view (its resolved spec: one plan, absolute paths)</source>
        <translation>Von der Spezifikation des in der Läufe-Ansicht ausgewählten Laufs ausgehen (aufgelöst: ein Plan, absolute Pfade)</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>Starten</translation>
    </message>
    <message>
        <source>Write the spec to the workspace and start growbench-cli run</source>
        <translation>Die Spezifikation in den Arbeitsbereich schreiben und growbench-cli run starten</translation>
    </message>
    <message>
        <source>Experiment</source>
        <translation>Experiment</translation>
    </message>
    <message>
        <source>Seeds and sweep</source>
        <translation>Seeds und Sweep</translation>
    </message>
    <message>
        <source>Other keys</source>
        <translation>Weitere Schlüssel</translation>
    </message>
    <message>
        <source>Top-level keys without a field in this editor, as JSON</source>
        <translation>Schlüssel der obersten Ebene ohne eigenes Feld in diesem Editor, als JSON</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>Daten</translation>
    </message>
    <message>
        <source>Evaluation</source>
        <translation>Auswertung</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>Training</translation>
    </message>
    <message>
        <source>task</source>
        <translation>Aufgabe</translation>
    </message>
    <message>
        <source>Evaluation tasks (at every evaluation)</source>
        <translation>Auswertungsaufgaben (bei jeder Auswertung)</translation>
    </message>
    <message>
        <source>Task sequence</source>
        <translation>Aufgabenfolge</translation>
    </message>
    <message>
        <source>Instead of new-domain training data: tasks trained in order (the plan applied once); after each task every task is evaluated (accuracy matrix, OP and BWT).</source>
        <translation>Statt Trainingsdaten der neuen Domäne: Aufgaben, nacheinander trainiert (der Plan wird einmal angewendet); nach jeder Aufgabe werden alle Aufgaben ausgewertet (Genauigkeitsmatrix, OP und BWT).</translation>
    </message>
    <message>
        <source>Evaluation of this task</source>
        <translation>Auswertung dieser Aufgabe</translation>
    </message>
    <message>
        <source>Plans</source>
        <translation>Pläne</translation>
    </message>
    <message>
        <source>One run per plan (times the sweep points and seeds). Each form is generated from the variant&apos;s parameter schema, as in the Grow planner.</source>
        <translation>Ein Lauf pro Plan (mal Sweep-Punkte und Seeds). Jedes Formular wird aus dem Parameterschema der Variante erzeugt, wie im Wachstumsplaner.</translation>
    </message>
    <message>
        <source>plan</source>
        <translation>Plan</translation>
    </message>
    <message>
        <source>Add the planner&apos;s queued plans</source>
        <translation>Die vorgemerkten Pläne des Planers hinzufügen</translation>
    </message>
    <message>
        <source>Append the plans queued in the Grow planner&apos;s comparison</source>
        <translation>Die im Vergleich des Wachstumsplaners vorgemerkten Pläne anhängen</translation>
    </message>
    <message>
        <source>Probes and checkpoints</source>
        <translation>Sonden und Checkpoints</translation>
    </message>
    <message>
        <source>&lt;b&gt;Command&lt;/b&gt;</source>
        <translation>&lt;b&gt;Befehl&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
    <message>
        <source>Copy the command line</source>
        <translation>Die Befehlszeile kopieren</translation>
    </message>
    <message>
        <source>&lt;b&gt;Spec (JSON)&lt;/b&gt;</source>
        <translation>&lt;b&gt;Spezifikation (JSON)&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Open an experiment spec</source>
        <translation>Eine Experimentspezifikation öffnen</translation>
    </message>
    <message>
        <source>Experiment spec (*.json)</source>
        <translation>Experimentspezifikation (*.json)</translation>
    </message>
    <message>
        <source>Save the spec</source>
        <translation>Die Spezifikation speichern</translation>
    </message>
    <message>
        <source>Select a run in the Runs view, then use its context menu “Open spec in the editor”.</source>
        <translation>Einen Lauf in der Läufe-Ansicht auswählen, dann sein Kontextmenü „Spezifikation im Editor öffnen“ verwenden.</translation>
    </message>
    <message>
        <source>Cannot launch</source>
        <translation>Start nicht möglich</translation>
    </message>
    <message>
        <source>New spec (not saved)</source>
        <translation>Neue Spezifikation (nicht gespeichert)</translation>
    </message>
    <message>
        <source>Could not read %1: %2</source>
        <translation>%1 konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>%1 is not a JSON object (an experiment spec).</source>
        <translation>%1 ist kein JSON-Objekt (keine Experimentspezifikation).</translation>
    </message>
    <message>
        <source>Loaded %1.</source>
        <translation>%1 geladen.</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>%1 konnte nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>Saved %1.</source>
        <translation>%1 gespeichert.</translation>
    </message>
    <message>
        <source>Run %1 is not in the open store.</source>
        <translation>Lauf %1 ist nicht im geöffneten Speicher.</translation>
    </message>
    <message>
        <source>Run %1 has no readable spec.</source>
        <translation>Lauf %1 hat keine lesbare Spezifikation.</translation>
    </message>
    <message>
        <source>From run %1 (not saved)</source>
        <translation>Aus Lauf %1 (nicht gespeichert)</translation>
    </message>
    <message>
        <source>The spec of run %1: change it and launch it as a new experiment.</source>
        <translation>Die Spezifikation von Lauf %1: ändern und als neues Experiment starten.</translation>
    </message>
    <message numerus="yes">
        <source>This spec stands for %n run(s).</source>
        <translation>
            <numerusform>Diese Spezifikation steht für %n Lauf.</numerusform>
            <numerusform>Diese Spezifikation steht für %n Läufe.</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 does not exist</source>
        <translation>%1 existiert nicht</translation>
    </message>
    <message>
        <source>%1 is not a model folder (no config.json)</source>
        <translation>%1 ist kein Modellordner (keine config.json)</translation>
    </message>
    <message>
        <source>Ready to launch.</source>
        <translation>Bereit zum Start.</translation>
    </message>
    <message numerus="yes">
        <source>%n problem(s): %1</source>
        <translation>
            <numerusform>%n Problem: %1</numerusform>
            <numerusform>%n Probleme: %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Open a workspace first.</source>
        <translation>Zuerst einen Arbeitsbereich öffnen.</translation>
    </message>
    <message>
        <source>The spec cannot run yet: %1</source>
        <translation>Die Spezifikation kann noch nicht laufen: %1</translation>
    </message>
    <message>
        <source>Launched %1 (spec %2).</source>
        <translation>%1 gestartet (Spezifikation %2).</translation>
    </message>
</context>
<context>
    <name>gb::gui::GroupCompareView</name>
    <message>
        <source>Group:</source>
        <translation>Gruppe:</translation>
    </message>
    <message>
        <source>The runs of one experiment spec (its seeds, sweep points and plans)</source>
        <translation>Die Läufe einer Experiment-Spezifikation (ihre Seeds, Sweep-Punkte und Pläne)</translation>
    </message>
    <message>
        <source>Group by:</source>
        <translation>Gruppieren nach:</translation>
    </message>
    <message>
        <source>Runs with the same value are aggregated (mean and spread over their seeds); “configuration” groups runs that differ only in their seed</source>
        <translation>Läufe mit demselben Wert werden zusammengefasst (Mittelwert und Streuung über ihre Seeds); „Konfiguration“ gruppiert Läufe, die sich nur im Seed unterscheiden</translation>
    </message>
    <message>
        <source>configuration</source>
        <translation>Konfiguration</translation>
    </message>
    <message>
        <source>Filter by name, group or parameter value</source>
        <translation>Nach Name, Gruppe oder Parameterwert filtern</translation>
    </message>
    <message>
        <source>Columns…</source>
        <translation>Spalten…</translation>
    </message>
    <message>
        <source>Choose the hyper-parameters and figures shown in the table</source>
        <translation>Die in der Tabelle gezeigten Hyperparameter und Kennzahlen wählen</translation>
    </message>
    <message>
        <source>Clear brushes</source>
        <translation>Bereiche löschen</translation>
    </message>
    <message>
        <source>Remove the ranges drawn on the parallel-coordinates axes</source>
        <translation>Die auf den Achsen der Parallelkoordinaten gezogenen Bereiche entfernen</translation>
    </message>
    <message>
        <source>Rows:</source>
        <translation>Zeilen:</translation>
    </message>
    <message>
        <source>runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>groups (mean ± std over complete runs)</source>
        <translation>Gruppen (Mittelwert ± Std über vollständige Läufe)</translation>
    </message>
    <message>
        <source>Table</source>
        <translation>Tabelle</translation>
    </message>
    <message>
        <source>Metric:</source>
        <translation>Metrik:</translation>
    </message>
    <message>
        <source>Band:</source>
        <translation>Band:</translation>
    </message>
    <message>
        <source>± standard deviation</source>
        <translation>± Standardabweichung</translation>
    </message>
    <message>
        <source>min – max</source>
        <translation>Min – Max</translation>
    </message>
    <message>
        <source>The spread over the runs of a group (their seeds) at each step</source>
        <translation>Die Streuung über die Läufe einer Gruppe (ihre Seeds) bei jedem Schritt</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>Logarithmische Skala</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>Curves</source>
        <translation>Kurven</translation>
    </message>
    <message>
        <source>Axes…</source>
        <translation>Achsen…</translation>
    </message>
    <message>
        <source>Choose the hyper-parameters and figures shown as axes</source>
        <translation>Die als Achsen gezeigten Hyperparameter und Kennzahlen wählen</translation>
    </message>
    <message>
        <source>Drag along an axis to keep only the runs in that range (click the axis to clear); the table, the group statistics, the curves and the trade-off follow.</source>
        <translation>Entlang einer Achse ziehen, um nur die Läufe in diesem Bereich zu behalten (Klick auf die Achse löscht ihn); Tabelle, Gruppenstatistik, Kurven und Zielkonflikt folgen.</translation>
    </message>
    <message>
        <source>Parallel coordinates</source>
        <translation>Parallelkoordinaten</translation>
    </message>
    <message>
        <source>log</source>
        <translation>log</translation>
    </message>
    <message>
        <source>Forgetting budget:</source>
        <translation>Vergessensbudget:</translation>
    </message>
    <message>
        <source>Per method, the configuration with the best learning whose mean forgetting (relative change of the forgetting metric on the validation sets) stays within this budget is marked</source>
        <translation>Je Methode wird die Konfiguration mit dem besten Lernen markiert, deren mittleres Vergessen (relative Änderung der Vergessensmetrik auf den Validierungsdaten) innerhalb dieses Budgets bleibt</translation>
    </message>
    <message>
        <source>Trade-off</source>
        <translation>Zielkonflikt</translation>
    </message>
    <message>
        <source>Hyper-parameters</source>
        <translation>Hyperparameter</translation>
    </message>
    <message>
        <source>Figures</source>
        <translation>Kennzahlen</translation>
    </message>
    <message>
        <source>Reading group %1…</source>
        <translation>Lese Gruppe %1…</translation>
    </message>
    <message>
        <source>Could not read group %1: %2</source>
        <translation>Gruppe %1 konnte nicht gelesen werden: %2</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n Lauf</numerusform>
            <numerusform>%n Läufe</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 complete</source>
        <translation>%1 vollständig</translation>
    </message>
    <message>
        <source>%1 partial (not finished: figures marked with their step)</source>
        <translation>%1 unvollständig (nicht beendet: Kennzahlen mit ihrem Schritt markiert)</translation>
    </message>
    <message>
        <source>%1 without an evaluation after step 0 (no figures)</source>
        <translation>%1 ohne Auswertung nach Schritt 0 (keine Kennzahlen)</translation>
    </message>
    <message>
        <source>The runs of this group do not all use the same evaluation sets, so their figures are not directly comparable:
%1</source>
        <translation>Die Läufe dieser Gruppe verwenden nicht alle dieselben Auswertungsdaten; ihre Kennzahlen sind daher nicht direkt vergleichbar:
%1</translation>
    </message>
    <message>
        <source>Other metrics</source>
        <translation>Weitere Metriken</translation>
    </message>
    <message>
        <source>Default columns</source>
        <translation>Standardspalten</translation>
    </message>
    <message>
        <source>forgetting (%)</source>
        <translation>Vergessen (%)</translation>
    </message>
    <message>
        <source>learning (%)</source>
        <translation>Lernen (%)</translation>
    </message>
    <message>
        <source>#%1 %2 (%3)</source>
        <translation>#%1 %2 (%3)</translation>
    </message>
    <message>
        <source>x has values ≤ 0: linear scale.</source>
        <translation>x hat Werte ≤ 0: lineare Skala.</translation>
    </message>
    <message>
        <source>y has values ≤ 0: linear scale.</source>
        <translation>y hat Werte ≤ 0: lineare Skala.</translation>
    </message>
    <message>
        <source>single runs</source>
        <translation>einzelne Läufe</translation>
    </message>
    <message>
        <source>partial runs (not finished)</source>
        <translation>unvollständige Läufe (nicht beendet)</translation>
    </message>
    <message>
        <source> (n=%1)</source>
        <translation> (n=%1)</translation>
    </message>
    <message>
        <source>best ≤ %1 %: %2</source>
        <translation>beste ≤ %1 %: %2</translation>
    </message>
    <message>
        <source>best within the %1 % budget, per method</source>
        <translation>beste innerhalb des Budgets von %1 %, je Methode</translation>
    </message>
    <message numerus="yes">
        <source>%n group(s) without complete runs are not drawn.</source>
        <translation>
            <numerusform>%n Gruppe ohne vollständige Läufe wird nicht gezeichnet.</numerusform>
            <numerusform>%n Gruppen ohne vollständige Läufe werden nicht gezeichnet.</numerusform>
        </translation>
    </message>
    <message>
        <source>Points: mean over the complete runs of a group; bars: ± one standard deviation.</source>
        <translation>Punkte: Mittelwert über die vollständigen Läufe einer Gruppe; Balken: ± eine Standardabweichung.</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>Methode</translation>
    </message>
    <message>
        <source>Within budget</source>
        <translation>Im Budget</translation>
    </message>
    <message>
        <source>Chosen configuration</source>
        <translation>Gewählte Konfiguration</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Forgetting of %1 (%2)</source>
        <translation>Vergessen von %1 (%2)</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>ja</translation>
    </message>
    <message numerus="yes">
        <source>chosen among %n configuration(s)</source>
        <translation>
            <numerusform>gewählt aus %n Konfiguration</numerusform>
            <numerusform>gewählt aus %n Konfigurationen</numerusform>
        </translation>
    </message>
    <message>
        <source>(the only one)</source>
        <translation>(die einzige)</translation>
    </message>
    <message>
        <source>no</source>
        <translation>nein</translation>
    </message>
    <message>
        <source>No configuration of %1 stays within the budget; the least mean forgetting is %2 %</source>
        <translation>Keine Konfiguration von %1 bleibt im Budget; das geringste mittlere Vergessen beträgt %2 %</translation>
    </message>
    <message>
        <source>least forgetting: %1 %</source>
        <translation>geringstes Vergessen: %1 %</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>Lese %1…</translation>
    </message>
    <message>
        <source>No run of the shown groups has %1.</source>
        <translation>Kein Lauf der gezeigten Gruppen hat %1.</translation>
    </message>
    <message>
        <source>Lines: mean over the runs of a group at each step; band: ± one standard deviation. Runs without a step are left out there.</source>
        <translation>Linien: Mittelwert über die Läufe einer Gruppe bei jedem Schritt; Band: ± eine Standardabweichung. Läufe ohne diesen Schritt bleiben dort unberücksichtigt.</translation>
    </message>
    <message>
        <source>Lines: mean over the runs of a group at each step; band: min to max. Runs without a step are left out there.</source>
        <translation>Linien: Mittelwert über die Läufe einer Gruppe bei jedem Schritt; Band: Minimum bis Maximum. Läufe ohne diesen Schritt bleiben dort unberücksichtigt.</translation>
    </message>
    <message>
        <source>Show:</source>
        <translation>Anzeigen:</translation>
    </message>
    <message>
        <source>fronts at matched learning</source>
        <translation>Fronten bei gleichem Lernen</translation>
    </message>
    <message>
        <source>configurations within a budget</source>
        <translation>Konfigurationen innerhalb eines Budgets</translation>
    </message>
    <message>
        <source>Fronts: each plan&apos;s forgetting at matched learning over its rates and steps (the fair comparison). Configurations: each configuration&apos;s final values, and the best one per method within a forgetting budget</source>
        <translation>Fronten: das Vergessen jedes Plans bei gleichem Lernen über seine Raten und Schritte (der faire Vergleich). Konfigurationen: die Endwerte jeder Konfiguration und die beste je Methode innerhalb eines Vergessensbudgets</translation>
    </message>
    <message>
        <source>Forgetting:</source>
        <translation>Vergessen:</translation>
    </message>
    <message>
        <source>Forgetting metric: a final value, or the change from step 0 (the fronts use its values at every evaluation)</source>
        <translation>Vergessensmetrik: ein Endwert oder die Änderung seit Schritt 0 (die Fronten verwenden ihre Werte bei jeder Auswertung)</translation>
    </message>
    <message>
        <source>Learning:</source>
        <translation>Lernen:</translation>
    </message>
    <message>
        <source>Learning metric: a final value, or the change from step 0 (the fronts use its values at every evaluation)</source>
        <translation>Lernmetrik: ein Endwert oder die Änderung seit Schritt 0 (die Fronten verwenden ihre Werte bei jeder Auswertung)</translation>
    </message>
    <message>
        <source>Evaluated points</source>
        <translation>Ausgewertete Punkte</translation>
    </message>
    <message>
        <source>Every evaluation of every run, faintly, behind the fronts</source>
        <translation>Jede Auswertung jedes Laufs, blass, hinter den Fronten</translation>
    </message>
    <message>
        <source>Auto level</source>
        <translation>Automatisches Niveau</translation>
    </message>
    <message>
        <source>Back to the automatic level: the best learning every seed of every plan reaches</source>
        <translation>Zurück zum automatischen Niveau: das beste Lernen, das jeder Seed jedes Plans erreicht</translation>
    </message>
    <message>
        <source>Drag the dashed line to compare at another level of learning; double-click to go back to the automatic level</source>
        <translation>Die gestrichelte Linie ziehen, um bei einem anderen Lernniveau zu vergleichen; Doppelklick kehrt zum automatischen Niveau zurück</translation>
    </message>
    <message>
        <source>forgetting at matched learning</source>
        <translation>Vergessen bei gleichem Lernen</translation>
    </message>
    <message>
        <source>does not reach</source>
        <translation>erreicht es nicht</translation>
    </message>
    <message>
        <source>forgetting at learning %1</source>
        <translation>Vergessen bei Lernen %1</translation>
    </message>
    <message>
        <source>learning (%1)</source>
        <translation>Lernen (%1)</translation>
    </message>
    <message>
        <source>No forgetting at matched learning: %1</source>
        <translation>Kein Vergessen bei gleichem Lernen: %1</translation>
    </message>
    <message>
        <source>Matched learning: %1 %2</source>
        <translation>Gleiches Lernen: %1 %2</translation>
    </message>
    <message>
        <source>(auto: the best level every seed of every plan reaches; drag the dashed line to choose another)</source>
        <translation>(automatisch: das beste Niveau, das jeder Seed jedes Plans erreicht; die gestrichelte Linie ziehen, um ein anderes zu wählen)</translation>
    </message>
    <message>
        <source>(dragged; double-click the plot or press Auto level to go back)</source>
        <translation>(gezogen; Doppelklick auf die Grafik oder „Automatisches Niveau“ kehrt zurück)</translation>
    </message>
    <message>
        <source>forgetting: %1 on the %2 sets</source>
        <translation>Vergessen: %1 auf den %2-Mengen</translation>
    </message>
    <message>
        <source>test</source>
        <translation>Test</translation>
    </message>
    <message>
        <source>validation</source>
        <translation>Validierung</translation>
    </message>
    <message>
        <source> (auto)</source>
        <translation> (automatisch)</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>Plan</translation>
    </message>
    <message>
        <source>Seeds reaching</source>
        <translation>Seeds, die es erreichen</translation>
    </message>
    <message>
        <source>%1 at %2 %3</source>
        <translation>%1 bei %2 %3</translation>
    </message>
    <message>
        <source>Chosen points (per seed: run, learning rate, step)</source>
        <translation>Gewählte Punkte (je Seed: Lauf, Lernrate, Schritt)</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>No run of %1 (any rate, any evaluation) reaches %2 %3</source>
        <translation>Kein Lauf von %1 (beliebige Rate, beliebige Auswertung) erreicht %2 %3</translation>
    </message>
    <message>
        <source>seed %1: run %2, lr %3, step %4 (%5)</source>
        <translation>Seed %1: Lauf %2, LR %3, Schritt %4 (%5)</translation>
    </message>
    <message>
        <source>seed %1: does not reach</source>
        <translation>Seed %1: erreicht es nicht</translation>
    </message>
    <message>
        <source>No fronts: %1</source>
        <translation>Keine Fronten: %1</translation>
    </message>
    <message>
        <source>Learning: %1 (validation; better to the left)</source>
        <translation>Lernen: %1 (Validierung; besser nach links)</translation>
    </message>
    <message>
        <source>Learning: %1 (validation; better to the right)</source>
        <translation>Lernen: %1 (Validierung; besser nach rechts)</translation>
    </message>
    <message>
        <source>Forgetting at matched learning: %1</source>
        <translation>Vergessen bei gleichem Lernen: %1</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n seed(s))</source>
        <translation>
            <numerusform>%1 (%n Seed)</numerusform>
            <numerusform>%1 (%n Seeds)</numerusform>
        </translation>
    </message>
    <message>
        <source>Lines: per plan, the least forgetting at each level of learning over its rates and evaluations (mean over its seeds; band: ± one standard deviation), drawn where every seed reaches the level.</source>
        <translation>Linien: je Plan das geringste Vergessen auf jedem Lernniveau über seine Raten und Auswertungen (Mittel über seine Seeds; Band: ± eine Standardabweichung), gezeichnet, wo jeder Seed das Niveau erreicht.</translation>
    </message>
    <message>
        <source>Dots: every evaluation of every run.</source>
        <translation>Punkte: jede Auswertung jedes Laufs.</translation>
    </message>
    <message>
        <source>Only the runs the filters let through.</source>
        <translation>Nur die Läufe, die die Filter durchlassen.</translation>
    </message>
    <message>
        <source>No level is reached by every seed of: %1.</source>
        <translation>Kein Niveau wird von jedem Seed erreicht von: %1.</translation>
    </message>
    <message>
        <source>Validation sets: %1</source>
        <translation>Validierungsmengen: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) not finished or without evaluations are left out.</source>
        <translation>
            <numerusform>%n Lauf, nicht abgeschlossen oder ohne Auswertungen, wird ausgelassen.</numerusform>
            <numerusform>%n Läufe, nicht abgeschlossen oder ohne Auswertungen, werden ausgelassen.</numerusform>
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
        <translation>Name</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>The group of the run under the current grouping</source>
        <translation>Die Gruppe des Laufs bei der aktuellen Gruppierung</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>Gruppe</translation>
    </message>
    <message>
        <source>Hyper-parameter %1</source>
        <translation>Hyperparameter %1</translation>
    </message>
    <message>
        <source>Relative change of %1 from step 0 to the final evaluation (positive = more forgetting)</source>
        <translation>Relative Änderung von %1 von Schritt 0 bis zur letzten Auswertung (positiv = mehr Vergessen)</translation>
    </message>
    <message>
        <source>Relative improvement of %1 from step 0 to the final evaluation</source>
        <translation>Relative Verbesserung von %1 von Schritt 0 bis zur letzten Auswertung</translation>
    </message>
    <message>
        <source>Final value of %1</source>
        <translation>Endwert von %1</translation>
    </message>
    <message>
        <source>Forgetting</source>
        <translation>Vergessen</translation>
    </message>
    <message>
        <source>%1 (step %2)</source>
        <translation>%1 (Schritt %2)</translation>
    </message>
    <message>
        <source>No figure: run %1 is %2 and has no evaluation after step 0</source>
        <translation>Keine Kennzahl: Lauf %1 ist %2 und hat keine Auswertung nach Schritt 0</translation>
    </message>
    <message>
        <source>Partial: run %1 is %2; this figure is from step %3 of %4</source>
        <translation>Unvollständig: Lauf %1 ist %2; diese Kennzahl stammt von Schritt %3 von %4</translation>
    </message>
    <message>
        <source>Learning (%)</source>
        <translation>Lernen (%)</translation>
    </message>
</context>
<context>
    <name>gb::gui::GroupStatsModel</name>
    <message>
        <source>Group</source>
        <translation>Gruppe</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>Forgetting (%)</source>
        <translation>Vergessen (%)</translation>
    </message>
    <message>
        <source>Learning (%)</source>
        <translation>Lernen (%)</translation>
    </message>
    <message>
        <source>Complete runs (finished, evaluated) / runs in the group</source>
        <translation>Vollständige Läufe (beendet, ausgewertet) / Läufe der Gruppe</translation>
    </message>
    <message>
        <source>%1: mean ± sample standard deviation over the complete runs of the group</source>
        <translation>%1: Mittelwert ± Stichproben-Standardabweichung über die vollständigen Läufe der Gruppe</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>No complete run in this group has this figure</source>
        <translation>Kein vollständiger Lauf dieser Gruppe hat diese Kennzahl</translation>
    </message>
    <message numerus="yes">
        <source>mean %1, std %2, min %3, max %4 over %n complete run(s)</source>
        <translation>
            <numerusform>Mittelwert %1, Std %2, Min %3, Max %4 über %n vollständigen Lauf</numerusform>
            <numerusform>Mittelwert %1, Std %2, Min %3, Max %4 über %n vollständige Läufe</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) without a final evaluation are left out of the figures</source>
        <translation>
            <numerusform>%n Lauf ohne abschließende Auswertung ist nicht in den Kennzahlen enthalten</numerusform>
            <numerusform>%n Läufe ohne abschließende Auswertung sind nicht in den Kennzahlen enthalten</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>gb::gui::GrowPlanner</name>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Check cancelled.</source>
        <translation>Prüfung abgebrochen.</translation>
    </message>
    <message>
        <source>The check failed: %1</source>
        <translation>Die Prüfung ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>not function preserving by design</source>
        <translation>konstruktionsbedingt nicht funktionserhaltend</translation>
    </message>
    <message>
        <source>preserved</source>
        <translation>erhalten</translation>
    </message>
    <message>
        <source>NOT preserved: check the operator</source>
        <translation>NICHT erhalten: prüfen Sie den Operator</translation>
    </message>
    <message>
        <source>max |logit diff| = %1 (%2) · exact: %3 added, %4 trainable (%5)</source>
        <translation>max. |Logit-Differenz| = %1 (%2) · exakt: %3 hinzugefügt, %4 trainierbar (%5)</translation>
    </message>
    <message>
        <source>Variant:</source>
        <translation>Variante:</translation>
    </message>
    <message>
        <source>optional label for tables and plots</source>
        <translation>optionale Bezeichnung für Tabellen und Diagramme</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>Name:</translation>
    </message>
    <message>
        <source>Hyper-parameters</source>
        <translation>Hyperparameter</translation>
    </message>
    <message>
        <source>All layers</source>
        <translation>Alle Schichten</translation>
    </message>
    <message>
        <source>Selected in the heatmap</source>
        <translation>In der Heatmap ausgewählt</translation>
    </message>
    <message>
        <source>Manual list</source>
        <translation>Manuelle Liste</translation>
    </message>
    <message>
        <source>Policies are resolved from importance probes when the run starts (growbench-cli run)</source>
        <translation>Regeln werden beim Start des Laufs aus den Wichtigkeitssondierungen bestimmt (growbench-cli run)</translation>
    </message>
    <message>
        <source>k = </source>
        <translation>k = </translation>
    </message>
    <message>
        <source>e.g. 0-3, 7</source>
        <translation>z. B. 0-3, 7</translation>
    </message>
    <message>
        <source>Layers:</source>
        <translation>Schichten:</translation>
    </message>
    <message>
        <source>Figures</source>
        <translation>Kennzahlen</translation>
    </message>
    <message>
        <source>float32 weights, plus gradients and AdamW&apos;s two moments for the trainable parameters; activations not included</source>
        <translation>float32-Gewichte plus Gradienten und die beiden AdamW-Momente der trainierbaren Parameter; ohne Aktivierungen</translation>
    </message>
    <message>
        <source>Base parameters:</source>
        <translation>Basisparameter:</translation>
    </message>
    <message>
        <source>Parameters added:</source>
        <translation>Hinzugefügte Parameter:</translation>
    </message>
    <message>
        <source>Trainable:</source>
        <translation>Trainierbar:</translation>
    </message>
    <message>
        <source>Estimated memory:</source>
        <translation>Geschätzter Speicher:</translation>
    </message>
    <message>
        <source>Function preserving:</source>
        <translation>Funktionserhaltend:</translation>
    </message>
    <message>
        <source>Check preservation</source>
        <translation>Erhaltung prüfen</translation>
    </message>
    <message>
        <source>Apply the plan with growbench-cli grow and compare the logits of the grown and the base model on a fixed random batch</source>
        <translation>Den Plan mit growbench-cli grow anwenden und die Logits des erweiterten Modells und des Basismodells auf einem festen Zufallsbatch vergleichen</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>The plan as JSON (docs/plans.md)</source>
        <translation>Der Plan als JSON (docs/plans.md)</translation>
    </message>
    <message>
        <source>Comparison</source>
        <translation>Vergleich</translation>
    </message>
    <message>
        <source>Add to comparison</source>
        <translation>Zum Vergleich hinzufügen</translation>
    </message>
    <message>
        <source>Queue this plan; the queued plans run as one comparison (one run each, same data and seed)</source>
        <translation>Diesen Plan einreihen; die eingereihten Pläne laufen als ein Vergleich (je ein Lauf, gleiche Daten und gleicher Seed)</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>Leeren</translation>
    </message>
    <message>
        <source>Launch…</source>
        <translation>Starten…</translation>
    </message>
    <message>
        <source>Open the Runs view to launch the queued plans</source>
        <translation>Die Ansicht „Läufe“ öffnen, um die eingereihten Pläne zu starten</translation>
    </message>
    <message>
        <source>This variant has no hyper-parameters.</source>
        <translation>Diese Variante hat keine Hyperparameter.</translation>
    </message>
    <message>
        <source>No layers selected.</source>
        <translation>Keine Schichten ausgewählt.</translation>
    </message>
    <message>
        <source>Open a model to see the figures.</source>
        <translation>Öffnen Sie ein Modell, um die Kennzahlen zu sehen.</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#c62828&apos;&gt;%1&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#c62828&apos;&gt;%1&lt;/span&gt;</translation>
    </message>
    <message>
        <source>%1 · %2 of the base</source>
        <translation>%1 · %2 des Basismodells</translation>
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
        <translation>ja, bei der Initialisierung</translation>
    </message>
    <message>
        <source>no (routing changes outputs)</source>
        <translation>nein (Routing ändert die Ausgaben)</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#c62828&apos;&gt;Not queued: %1&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#c62828&apos;&gt;Nicht eingereiht: %1&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Open a model first.</source>
        <translation>Öffnen Sie zuerst ein Modell.</translation>
    </message>
    <message>
        <source>The check needs explicit layers: select some in the heatmap (the policy itself is resolved when the run starts).</source>
        <translation>Die Prüfung braucht konkrete Schichten: wählen Sie welche in der Heatmap aus (die Regel selbst wird erst beim Start des Laufs bestimmt).</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>Prüfe…</translation>
    </message>
    <message>
        <source>%1:</source>
        <comment>form label</comment>
        <translation>%1:</translation>
    </message>
    <message>
        <source>Training of this plan</source>
        <translation>Training dieses Plans</translation>
    </message>
    <message>
        <source>Replay:</source>
        <translation>Replay:</translation>
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
        <translation>EWC:</translation>
    </message>
    <message>
        <source>Trainable parameters active per token: routed experts count top-k of K; the other variants activate everything they train</source>
        <translation>Pro Token aktive trainierbare Parameter: geroutete Experten zählen mit top-k von K; die anderen Varianten aktivieren alles, was sie trainieren</translation>
    </message>
    <message>
        <source>Activated per token:</source>
        <translation>Aktiviert pro Token:</translation>
    </message>
    <message>
        <source>The plan changed during the check: check it again.</source>
        <translation>Der Plan hat sich während der Prüfung geändert: erneut prüfen.</translation>
    </message>
    <message>
        <source>A label for tables and plots; empty: the plan&apos;s own label (shown)</source>
        <translation>Eine Bezeichnung für Tabellen und Diagramme; leer: die eigene Bezeichnung des Plans (angezeigt)</translation>
    </message>
    <message>
        <source>The name “%1” was cleared: it named the previous variant.</source>
        <translation>Der Name „%1“ wurde gelöscht: Er bezeichnete die vorige Variante.</translation>
    </message>
    <message>
        <source>%1: %2 → %3</source>
        <translation>%1: %2 → %3</translation>
    </message>
    <message>
        <source>Not checked since the plan or the model changed: “Check preservation” checks this plan.</source>
        <translation>Nicht geprüft, seit sich Plan oder Modell geändert haben: „Erhalt prüfen“ prüft diesen Plan.</translation>
    </message>
    <message>
        <source>default: %1</source>
        <translation>Standard: %1</translation>
    </message>
    <message>
        <source>Adjusted to the new model: %1</source>
        <translation>An das neue Modell angepasst: %1</translation>
    </message>
    <message>
        <source>Suggest a plan…</source>
        <translation>Plan vorschlagen…</translation>
    </message>
    <message>
        <source>Let a budgeted search over the variants, layers and rates recommend a plan for the workspace&apos;s model and data (growbench-cli suggest)</source>
        <translation>Eine budgetierte Suche über Varianten, Schichten und Lernraten einen Plan für Modell und Daten des Arbeitsbereichs empfehlen lassen (growbench-cli suggest)</translation>
    </message>
    <message>
        <source>Policy of the loaded plan</source>
        <translation>Richtlinie des geladenen Plans</translation>
    </message>
    <message>
        <source>The layer policy of the plan loaded (e.g. from “Suggest a plan”), as it was</source>
        <translation>Die Schichtrichtlinie des geladenen Plans (z. B. aus „Plan vorschlagen“), unverändert</translation>
    </message>
    <message>
        <source>The plan has no variant.</source>
        <translation>Der Plan hat keine Variante.</translation>
    </message>
    <message>
        <source>The plan is not valid: %1</source>
        <translation>Der Plan ist ungültig: %1</translation>
    </message>
    <message>
        <source>The planner has no variant %1.</source>
        <translation>Der Planer kennt keine Variante %1.</translation>
    </message>
    <message>
        <source>The form cannot hold this plan: %1</source>
        <translation>Das Formular kann diesen Plan nicht darstellen: %1</translation>
    </message>
    <message>
        <source>The form cannot hold every value of this plan: %1</source>
        <translation>Das Formular kann nicht jeden Wert dieses Plans darstellen: %1</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#c62828&apos;&gt;The recommended plan was not loaded: %1&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#c62828&apos;&gt;Der empfohlene Plan wurde nicht geladen: %1&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Recommended by “Suggest a plan” with learning rate %1 over %2 steps (the Runs view&apos;s launch form takes both).</source>
        <translation>Empfohlen von „Plan vorschlagen“ mit Lernrate %1 über %2 Schritte (das Startformular der Ansicht „Läufe“ übernimmt beide).</translation>
    </message>
    <message>
        <source>Loaded into the Grow planner as its current plan: edit it there, add it to the comparison or launch it from the Runs view.</source>
        <translation>Als aktueller Plan in den Wachstumsplaner geladen: dort bearbeiten, zum Vergleich hinzufügen oder in der Ansicht „Läufe“ starten.</translation>
    </message>
    <message>
        <source>Not loaded into the planner: %1</source>
        <translation>Nicht in den Planer geladen: %1</translation>
    </message>
</context>
<context>
    <name>gb::gui::HeatmapPlot</name>
    <message>
        <source>No data</source>
        <translation>Keine Daten</translation>
    </message>
    <message>
        <source>no value</source>
        <translation>kein Wert</translation>
    </message>
    <message>
        <source>Layer %1 · %2
%3: %4</source>
        <translation>Schicht %1 · %2
%3: %4</translation>
    </message>
    <message>
        <source>Layer %1
%2: %3</source>
        <translation>Schicht %1
%2: %3</translation>
    </message>
</context>
<context>
    <name>gb::gui::ImportanceView</name>
    <message>
        <source>effective rank of ΔW_up</source>
        <translation>effektiver Rang von ΔW_up</translation>
    </message>
    <message>
        <source>%1 · ETA %2</source>
        <translation>%1 · noch %2</translation>
    </message>
    <message>
        <source>Probe cancelled.</source>
        <translation>Sondierung abgebrochen.</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>abgebrochen</translation>
    </message>
    <message>
        <source>The probe failed: %1</source>
        <translation>Die Sondierung ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>done</source>
        <translation>fertig</translation>
    </message>
    <message>
        <source>Probe %1 recorded.</source>
        <translation>Sondierung %1 gespeichert.</translation>
    </message>
    <message>
        <source>Selected layers: none</source>
        <translation>Ausgewählte Schichten: keine</translation>
    </message>
    <message>
        <source>Selected layers: %1</source>
        <translation>Ausgewählte Schichten: %1</translation>
    </message>
    <message>
        <source>Probe:</source>
        <translation>Sondierung:</translation>
    </message>
    <message>
        <source>Importance probes recorded in this workspace&apos;s store</source>
        <translation>Im Speicher dieses Arbeitsbereichs erfasste Wichtigkeitssondierungen</translation>
    </message>
    <message>
        <source>Only this model</source>
        <translation>Nur dieses Modell</translation>
    </message>
    <message>
        <source>List only the probes of the model open in the Model view</source>
        <translation>Nur die Sondierungen des in der Ansicht „Modell“ geöffneten Modells auflisten</translation>
    </message>
    <message>
        <source>New probe…</source>
        <translation>Neue Sondierung…</translation>
    </message>
    <message>
        <source>Run a new importance probe on the current model</source>
        <translation>Eine neue Wichtigkeitssondierung am aktuellen Modell ausführen</translation>
    </message>
    <message>
        <source>New probe</source>
        <translation>Neue Sondierung</translation>
    </message>
    <message>
        <source>Layer masking: loss increase when a layer is bypassed</source>
        <translation>Schichtmaskierung: Verlustanstieg, wenn eine Schicht übersprungen wird</translation>
    </message>
    <message>
        <source>Taylor, absolute: mean |θ·∂L/∂θ| per unit</source>
        <translation>Taylor, absolut: Mittelwert von |θ·∂L/∂θ| pro Einheit</translation>
    </message>
    <message>
        <source>Fisher: sum of squared log-likelihood gradients</source>
        <translation>Fisher: Summe der quadrierten Gradienten der Log-Likelihood</translation>
    </message>
    <message>
        <source>Update magnitude ‖W_T − W_0‖ after a short fine-tuning run (Grow §4.2)</source>
        <translation>Aktualisierungsbetrag ‖W_T − W_0‖ nach einem kurzen Feinabstimmungslauf (Grow §4.2)</translation>
    </message>
    <message>
        <source>Effective rank of ΔW_up per layer and training stage (Grow §4.4)</source>
        <translation>Effektiver Rang von ΔW_up pro Schicht und Trainingsphase (Grow §4.4)</translation>
    </message>
    <message>
        <source>Method:</source>
        <translation>Methode:</translation>
    </message>
    <message>
        <source>Probe data</source>
        <translation>Sondierungsdaten</translation>
    </message>
    <message>
        <source>General data:</source>
        <translation>Allgemeine Daten:</translation>
    </message>
    <message>
        <source>original-domain text, JSONL or multiple-choice JSONL</source>
        <translation>Text der Ursprungsdomäne, JSONL oder Multiple-Choice-JSONL</translation>
    </message>
    <message>
        <source>Domain data:</source>
        <translation>Domänendaten:</translation>
    </message>
    <message>
        <source>optional: new-domain data for calibrated scores</source>
        <translation>optional: Daten der neuen Domäne für kalibrierte Werte</translation>
    </message>
    <message>
        <source>all</source>
        <translation>alle</translation>
    </message>
    <message>
        <source>Token budget of the probe set (0 = all of it)</source>
        <translation>Token-Budget der Sondierungsmenge (0 = alles)</translation>
    </message>
    <message>
        <source>Tokens:</source>
        <translation>Tokens:</translation>
    </message>
    <message>
        <source>Run probe</source>
        <translation>Sondierung ausführen</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Show:</source>
        <translation>Anzeigen:</translation>
    </message>
    <message>
        <source>Raw values</source>
        <translation>Rohwerte</translation>
    </message>
    <message>
        <source>Absolute values</source>
        <translation>Absolutwerte</translation>
    </message>
    <message>
        <source>Calibrated (domain rank − general rank)</source>
        <translation>Kalibriert (Domänenrang − allgemeiner Rang)</translation>
    </message>
    <message>
        <source>ADEPT App. R: negative = more important on the domain set than on the general set</source>
        <translation>ADEPT Anh. R: negativ = auf der Domänenmenge wichtiger als auf der allgemeinen Menge</translation>
    </message>
    <message>
        <source>Min–max scale every unit column to [0, 1] so units with different magnitudes can be compared</source>
        <translation>Jede Einheitenspalte per Min-Max auf [0, 1] skalieren, damit Einheiten unterschiedlicher Größenordnung vergleichbar sind</translation>
    </message>
    <message>
        <source>Domain probe:</source>
        <translation>Domänensondierung:</translation>
    </message>
    <message>
        <source>The probe on the new-domain data, for calibrated scores</source>
        <translation>Die Sondierung auf den Daten der neuen Domäne, für kalibrierte Werte</translation>
    </message>
    <message>
        <source>Export plot…</source>
        <translation>Diagramm exportieren…</translation>
    </message>
    <message>
        <source>Save the heatmap shown as PNG, SVG or PDF</source>
        <translation>Die angezeigte Heatmap als PNG, SVG oder PDF speichern</translation>
    </message>
    <message>
        <source>Export plot</source>
        <translation>Diagramm exportieren</translation>
    </message>
    <message>
        <source>Wrote %1.</source>
        <translation>%1 geschrieben.</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>Schicht</translation>
    </message>
    <message>
        <source>Unit</source>
        <translation>Einheit</translation>
    </message>
    <message>
        <source>Layers × units</source>
        <translation>Schichten × Einheiten</translation>
    </message>
    <message>
        <source>Effective-rank probe:</source>
        <translation>Sondierung des effektiven Rangs:</translation>
    </message>
    <message>
        <source>Training stage</source>
        <translation>Trainingsphase</translation>
    </message>
    <message>
        <source>Effective rank</source>
        <translation>Effektiver Rang</translation>
    </message>
    <message>
        <source>Select layers</source>
        <translation>Schichten auswählen</translation>
    </message>
    <message>
        <source>Least important</source>
        <translation>Am wenigsten wichtig</translation>
    </message>
    <message>
        <source>The k layers with the lowest general importance (ADEPT: expand the layers least important for general competence)</source>
        <translation>Die k Schichten mit der geringsten allgemeinen Wichtigkeit (ADEPT: die für die allgemeine Kompetenz am wenigsten wichtigen Schichten erweitern)</translation>
    </message>
    <message>
        <source>k = </source>
        <translation>k = </translation>
    </message>
    <message>
        <source>Number of layers</source>
        <translation>Anzahl der Schichten</translation>
    </message>
    <message>
        <source>Top-N by update</source>
        <translation>Top-N nach Aktualisierung</translation>
    </message>
    <message>
        <source>The N layers with the largest weight-update magnitude after a short fine-tuning run (the Grow paper&apos;s layer choice); needs an update-magnitude probe</source>
        <translation>Die N Schichten mit dem größten Gewichts-Aktualisierungsbetrag nach einem kurzen Feinabstimmungslauf (die Schichtwahl des Grow-Papers); erfordert eine Sondierung des Aktualisierungsbetrags</translation>
    </message>
    <message>
        <source>N = </source>
        <translation>N = </translation>
    </message>
    <message>
        <source>Uniform</source>
        <translation>Gleichmäßig</translation>
    </message>
    <message>
        <source>One layer after every L/P layers (LLaMA-Pro&apos;s positions)</source>
        <translation>Eine Schicht nach jeweils L/P Schichten (die Positionen von LLaMA-Pro)</translation>
    </message>
    <message>
        <source>P = </source>
        <translation>P = </translation>
    </message>
    <message>
        <source>Number of positions</source>
        <translation>Anzahl der Positionen</translation>
    </message>
    <message>
        <source>Above L_fp</source>
        <translation>Oberhalb von L_fp</translation>
    </message>
    <message>
        <source>Every layer above the lowest L_fp (SCALE&apos;s collaboration layers)</source>
        <translation>Jede Schicht oberhalb der untersten L_fp (die Kollaborationsschichten von SCALE)</translation>
    </message>
    <message>
        <source>L_fp = </source>
        <translation>L_fp = </translation>
    </message>
    <message>
        <source>Lowest layers left out</source>
        <translation>Ausgelassene unterste Schichten</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>Leeren</translation>
    </message>
    <message>
        <source>Click or drag over layers in the heatmap or the bars; Ctrl adds or removes layers</source>
        <translation>Klicken oder ziehen Sie über Schichten in der Heatmap oder den Balken; mit Strg fügen Sie Schichten hinzu oder entfernen sie</translation>
    </message>
    <message>
        <source>No probe shown</source>
        <translation>Keine Sondierung angezeigt</translation>
    </message>
    <message>
        <source>#%1 %2 · %3 · %4</source>
        <translation>#%1 %2 · %3 · %4</translation>
    </message>
    <message>
        <source>Model: %1
Probe set: %2</source>
        <translation>Modell: %1
Sondierungsmenge: %2</translation>
    </message>
    <message>
        <source>No probe for this model yet: run one with “New probe…”</source>
        <translation>Noch keine Sondierung für dieses Modell: führen Sie eine mit „Neue Sondierung…“ aus</translation>
    </message>
    <message>
        <source>No probes in this workspace</source>
        <translation>Keine Sondierungen in diesem Arbeitsbereich</translation>
    </message>
    <message>
        <source>No effective-rank probe: run one with method “effective-rank”</source>
        <translation>Keine Sondierung des effektiven Rangs: führen Sie eine mit der Methode „effective-rank“ aus</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>(keine)</translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation>#%1 %2</translation>
    </message>
    <message>
        <source>Could not read probe %1: %2</source>
        <translation>Sondierung %1 konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>Could not read this probe</source>
        <translation>Diese Sondierung konnte nicht gelesen werden</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>Schicht</translation>
    </message>
    <message>
        <source>Calibrated scores need a domain probe of the same method and model: choose one under “Domain probe”</source>
        <translation>Kalibrierte Werte brauchen eine Domänensondierung mit derselben Methode und demselben Modell: wählen Sie eine unter „Domänensondierung“</translation>
    </message>
    <message>
        <source>This probe has no values</source>
        <translation>Diese Sondierung enthält keine Werte</translation>
    </message>
    <message>
        <source>%1 · %2 layers</source>
        <translation>%1 · %2 Schichten</translation>
    </message>
    <message>
        <source> · probe set: %1 · %2 s</source>
        <translation> · Sondierungsmenge: %1 · %2 s</translation>
    </message>
    <message>
        <source> · base loss %1</source>
        <translation> · Basisverlust %1</translation>
    </message>
    <message>
        <source>This probe has no stage matrix</source>
        <translation>Diese Sondierung hat keine Phasenmatrix</translation>
    </message>
    <message>
        <source>Effective rank (exp of the entropy of the normalised singular values) of each layer&apos;s up-projection update per training stage; a low rank means the update concentrates in few directions.</source>
        <translation>Effektiver Rang (exp der Entropie der normierten Singulärwerte) der Aktualisierung der Up-Projektion jeder Schicht pro Trainingsphase; ein niedriger Rang bedeutet, dass sich die Aktualisierung auf wenige Richtungen konzentriert.</translation>
    </message>
    <message>
        <source>Selected layers %1 (%2).</source>
        <translation>Ausgewählte Schichten %1 (%2).</translation>
    </message>
    <message>
        <source>Could not apply the policy: %1</source>
        <translation>Die Regel konnte nicht angewendet werden: %1</translation>
    </message>
    <message>
        <source>Show a masking, Taylor or Fisher probe first.</source>
        <translation>Zeigen Sie zuerst eine Maskierungs-, Taylor- oder Fisher-Sondierung an.</translation>
    </message>
    <message>
        <source>“Least important” needs a masking, Taylor or Fisher probe.</source>
        <translation>„Am wenigsten wichtig“ erfordert eine Maskierungs-, Taylor- oder Fisher-Sondierung.</translation>
    </message>
    <message>
        <source>No update-magnitude probe for this model: run one (New probe…, method update-magnitude) on the new-domain data.</source>
        <translation>Keine Sondierung des Aktualisierungsbetrags für dieses Modell: führen Sie eine auf den Daten der neuen Domäne aus (Neue Sondierung…, Methode update-magnitude).</translation>
    </message>
    <message>
        <source>Open a model first.</source>
        <translation>Öffnen Sie zuerst ein Modell.</translation>
    </message>
    <message>
        <source>Open a model in the Model view first.</source>
        <translation>Öffnen Sie zuerst ein Modell in der Ansicht „Modell“.</translation>
    </message>
    <message>
        <source>The model folder has no tokenizer.json: probes need one.</source>
        <translation>Der Modellordner enthält keine tokenizer.json: Sondierungen benötigen eine.</translation>
    </message>
    <message>
        <source>Choose the general probe data (a text or JSONL file).</source>
        <translation>Wählen Sie die allgemeinen Sondierungsdaten (eine Text- oder JSONL-Datei).</translation>
    </message>
    <message>
        <source>Open a workspace first.</source>
        <translation>Öffnen Sie zuerst einen Arbeitsbereich.</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>starte…</translation>
    </message>
    <message>
        <source>Probing %1 with %2…</source>
        <translation>Sondiere %1 mit %2…</translation>
    </message>
    <message>
        <source>Could not select: %1</source>
        <translation>Auswahl nicht möglich: %1</translation>
    </message>
    <message>
        <source>Layer masking (loss increase)</source>
        <translation>Schichtmaskierung (Verlustanstieg)</translation>
    </message>
    <message>
        <source>Taylor θ·g (signed)</source>
        <translation>Taylor θ·g (mit Vorzeichen)</translation>
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
        <translation>Update-Betrag ‖ΔW‖</translation>
    </message>
    <message>
        <source>Effective rank of ΔW_up</source>
        <translation>Effektiver Rang von ΔW_up</translation>
    </message>
    <message>
        <source>File…</source>
        <translation>Datei…</translation>
    </message>
    <message>
        <source>Choose a file (files without an extension are shown too)</source>
        <translation>Eine Datei wählen (Dateien ohne Endung werden auch gezeigt)</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>Ordner…</translation>
    </message>
    <message>
        <source>Choose a folder (e.g. a folder of fortune files)</source>
        <translation>Einen Ordner wählen (z. B. einen Ordner mit Fortune-Dateien)</translation>
    </message>
    <message>
        <source>Text or JSONL (*.txt *.jsonl *.json)</source>
        <translation>Text oder JSONL (*.txt *.jsonl *.json)</translation>
    </message>
    <message>
        <source>Cells:</source>
        <translation>Zellen:</translation>
    </message>
    <message>
        <source>Values</source>
        <translation>Werte</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>Logarithmisch</translation>
    </message>
    <message>
        <source>Normalised per unit</source>
        <translation>Pro Einheit normiert</translation>
    </message>
    <message>
        <source>Rank per unit</source>
        <translation>Rang pro Einheit</translation>
    </message>
    <message>
        <source>The unit scores on one colour scale</source>
        <translation>Die Einheitenwerte auf einer Farbskala</translation>
    </message>
    <message>
        <source>log₁₀ of each score&apos;s magnitude: a few large norms no longer hide the rest (zeros are left blank)</source>
        <translation>log₁₀ des Betrags jedes Werts: Einige große Normen verdecken den Rest nicht mehr (Nullen bleiben leer)</translation>
    </message>
    <message>
        <source>Each layer&apos;s rank within its unit column (1 = most important)</source>
        <translation>Der Rang jeder Schicht in ihrer Einheitenspalte (1 = am wichtigsten)</translation>
    </message>
    <message>
        <source>How the cells are coloured; the bars always show the layer score</source>
        <translation>Wie die Zellen gefärbt werden; die Balken zeigen immer den Schichtwert</translation>
    </message>
    <message>
        <source>domain rank − general rank of the layer score</source>
        <translation>Domänenrang − allgemeiner Rang des Schichtwerts</translation>
    </message>
    <message>
        <source>|loss increase| when the layer is bypassed</source>
        <translation>|Verlustanstieg|, wenn die Schicht übersprungen wird</translation>
    </message>
    <message>
        <source>loss increase when the layer is bypassed</source>
        <translation>Verlustanstieg, wenn die Schicht übersprungen wird</translation>
    </message>
    <message>
        <source>|Σ θ·g| over the layer&apos;s parameters</source>
        <translation>|Σ θ·g| über die Parameter der Schicht</translation>
    </message>
    <message>
        <source>Σ θ·g over the layer&apos;s parameters</source>
        <translation>Σ θ·g über die Parameter der Schicht</translation>
    </message>
    <message>
        <source>Σ |θ·g| over the layer&apos;s parameters</source>
        <translation>Σ |θ·g| über die Parameter der Schicht</translation>
    </message>
    <message>
        <source>Σ g² (Fisher) over the layer&apos;s parameters</source>
        <translation>Σ g² (Fisher) über die Parameter der Schicht</translation>
    </message>
    <message>
        <source>‖W_T − W_0‖ of the layer</source>
        <translation>‖W_T − W_0‖ der Schicht</translation>
    </message>
    <message>
        <source>rank difference</source>
        <translation>Rangdifferenz</translation>
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
        <translation>Domänenrang − allgemeiner Rang in der Einheitenspalte</translation>
    </message>
    <message>
        <source>|mean θ·g| over the unit&apos;s parameters</source>
        <translation>|Mittel θ·g| über die Parameter der Einheit</translation>
    </message>
    <message>
        <source>mean θ·g over the unit&apos;s parameters</source>
        <translation>Mittel θ·g über die Parameter der Einheit</translation>
    </message>
    <message>
        <source>mean |θ·g| over the unit&apos;s parameters</source>
        <translation>Mittel |θ·g| über die Parameter der Einheit</translation>
    </message>
    <message>
        <source>Σ g² (Fisher) over the unit&apos;s parameters</source>
        <translation>Σ g² (Fisher) über die Parameter der Einheit</translation>
    </message>
    <message>
        <source>log₁₀ |%1|</source>
        <translation>log₁₀ |%1|</translation>
    </message>
    <message>
        <source>%1, min–max per unit</source>
        <translation>%1, Min–Max pro Einheit</translation>
    </message>
    <message>
        <source>rank of %1 in its unit (1 = most important)</source>
        <translation>Rang von %1 in seiner Einheit (1 = am wichtigsten)</translation>
    </message>
    <message>
        <source>layer score: %1</source>
        <translation>Schichtwert: %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Bars&lt;/b&gt;: the layer score, %1 (%2) — what “Least important” ranks, lowest first. &lt;b&gt;Cells&lt;/b&gt;: each unit&apos;s own score, %3. A bar is not the sum of its row&apos;s cells: cells are per-unit means or sums, and signed values cancel within a layer.</source>
        <translation>&lt;b&gt;Balken&lt;/b&gt;: der Schichtwert, %1 (%2) – das, was „Am wenigsten wichtig“ ordnet, niedrigste zuerst. &lt;b&gt;Zellen&lt;/b&gt;: der eigene Wert jeder Einheit, %3. Ein Balken ist nicht die Summe der Zellen seiner Zeile: Zellen sind Mittelwerte oder Summen pro Einheit, und Werte mit Vorzeichen heben sich innerhalb einer Schicht auf.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Bars&lt;/b&gt; and cells: the layer score, %1 (%2) — what “Least important” ranks, lowest first.</source>
        <translation>&lt;b&gt;Balken&lt;/b&gt; und Zellen: der Schichtwert, %1 (%2) – das, was „Am wenigsten wichtig“ ordnet, niedrigste zuerst.</translation>
    </message>
    <message>
        <source>“Least important” needs the bars: none are drawn.</source>
        <translation>„Am wenigsten wichtig“ braucht die Balken: Es sind keine gezeichnet.</translation>
    </message>
    <message>
        <source>“Least important” picks the k lowest bars: %1.</source>
        <translation>„Am wenigsten wichtig“ wählt die k niedrigsten Balken: %1.</translation>
    </message>
    <message>
        <source>No layer scores are drawn (a calibrated view needs a domain probe).</source>
        <translation>Es sind keine Schichtwerte gezeichnet (eine kalibrierte Ansicht braucht eine Domänensonde).</translation>
    </message>
    <message>
        <source>Selected layers %1: the %2 lowest by %3, as drawn.</source>
        <translation>Schichten %1 ausgewählt: die %2 niedrigsten nach %3, wie gezeichnet.</translation>
    </message>
    <message>
        <source>Taylor |θ|·mean|g_b| (ADEPT&apos;s code)</source>
        <translation>Taylor |θ|·mean|g_b| (ADEPTs Code)</translation>
    </message>
    <message>
        <source>Taylor, ADEPT&apos;s code: mean of |θ| times the mean over probe batches of |∂L_b/∂θ| per unit; the default of ADEPT&apos;s stage 2</source>
        <translation>Taylor, ADEPTs Code: Mittelwert von |θ| mal dem Mittel über Probe-Batches von |∂L_b/∂θ| pro Einheit; Standard der ADEPT-Stufe 2</translation>
    </message>
    <message>
        <source>Taylor: mean θ·∂L/∂θ per unit (signed, as ADEPT&apos;s text; q and k, v and o, up and down come out identical)</source>
        <translation>Taylor: Mittelwert von θ·∂L/∂θ pro Einheit (mit Vorzeichen, wie ADEPTs Text; q und k, v und o, up und down ergeben denselben Wert)</translation>
    </message>
    <message>
        <source>Σ |θ|·mean|g_b| over the layer&apos;s parameters</source>
        <translation>Σ |θ|·mean|g_b| über die Parameter der Schicht</translation>
    </message>
    <message>
        <source>Σ |θ|·|g_b|</source>
        <translation>Σ |θ|·|g_b|</translation>
    </message>
    <message>
        <source>mean |θ|·mean|g_b| over the unit&apos;s parameters</source>
        <translation>Mittel |θ|·mean|g_b| über die Parameter der Einheit</translation>
    </message>
</context>
<context>
    <name>gb::gui::JobQueueModel</name>
    <message>
        <source>Job</source>
        <translation>Auftrag</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>queued</source>
        <translation>wartend</translation>
    </message>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>beendet</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>abgebrochen</translation>
    </message>
</context>
<context>
    <name>gb::gui::ListEditor</name>
    <message>
        <source>Add</source>
        <translation>Hinzufügen</translation>
    </message>
    <message>
        <source>Add a %1</source>
        <translation>%1 hinzufügen</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
    <message>
        <source>Duplicate the selected %1</source>
        <translation>Ausgewählte(n) %1 duplizieren</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>↑</source>
        <translation>↑</translation>
    </message>
    <message>
        <source>Move up</source>
        <translation>Nach oben</translation>
    </message>
    <message>
        <source>↓</source>
        <translation>↓</translation>
    </message>
    <message>
        <source>Move down</source>
        <translation>Nach unten</translation>
    </message>
</context>
<context>
    <name>gb::gui::MainWindow</name>
    <message>
        <source>Workspace</source>
        <translation>Arbeitsbereich</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Importance</source>
        <translation>Wichtigkeit</translation>
    </message>
    <message>
        <source>Grow planner</source>
        <translation>Wachstumsplaner</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>Curves</source>
        <translation>Kurven</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>Vergleichen</translation>
    </message>
    <message>
        <source>Could not open the run store %1:
%2</source>
        <translation>Die Lauf-Datenbank %1 konnte nicht geöffnet werden:
%2</translation>
    </message>
    <message>
        <source>no store</source>
        <translation>keine Datenbank</translation>
    </message>
    <message numerus="yes">
        <source>%n job(s) active</source>
        <translation>
            <numerusform>%n Auftrag aktiv</numerusform>
            <numerusform>%n Aufträge aktiv</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Open workspace…</source>
        <translation>Arbeitsbereich ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>&amp;New workspace…</source>
        <translation>&amp;Neuer Arbeitsbereich…</translation>
    </message>
    <message>
        <source>Open &amp;model…</source>
        <translation>&amp;Modell öffnen…</translation>
    </message>
    <message>
        <source>Open a model folder</source>
        <translation>Einen Modellordner öffnen</translation>
    </message>
    <message>
        <source>Export &amp;plot…</source>
        <translation>&amp;Diagramm exportieren…</translation>
    </message>
    <message>
        <source>Export &amp;table as CSV…</source>
        <translation>&amp;Tabelle als CSV exportieren…</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>&amp;Einstellungen…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Lauf</translation>
    </message>
    <message>
        <source>&amp;Launch run</source>
        <translation>Lauf &amp;starten</translation>
    </message>
    <message>
        <source>&amp;Add plan to comparison</source>
        <translation>Plan zum &amp;Vergleich hinzufügen</translation>
    </message>
    <message>
        <source>&amp;Check preservation</source>
        <translation>&amp;Erhaltung prüfen</translation>
    </message>
    <message>
        <source>New &amp;probe…</source>
        <translation>Neue Sondier&amp;ung…</translation>
    </message>
    <message>
        <source>Ca&amp;ncel selected runs</source>
        <translation>Ausgewählte Läufe a&amp;bbrechen</translation>
    </message>
    <message>
        <source>&amp;Resume selected runs</source>
        <translation>Ausgewählte Läufe &amp;fortsetzen</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>A&amp;ktualisieren</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>Show %1</source>
        <translation>%1 anzeigen</translation>
    </message>
    <message>
        <source>Views</source>
        <translation>Ansichten</translation>
    </message>
    <message>
        <source>&amp;Reset layout</source>
        <translation>Layout &amp;zurücksetzen</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>&amp;About GrowBench</source>
        <translation>&amp;Über GrowBench</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>Über &amp;Qt</translation>
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
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>The new language applies when GrowBench starts again.</source>
        <translation>Die neue Sprache gilt ab dem nächsten Start von GrowBench.</translation>
    </message>
    <message>
        <source>Export plot</source>
        <translation>Diagramm exportieren</translation>
    </message>
    <message>
        <source>Wrote %1.</source>
        <translation>%1 geschrieben.</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>Export fehlgeschlagen</translation>
    </message>
    <message>
        <source>Export table</source>
        <translation>Tabelle exportieren</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>Runs are active</source>
        <translation>Läufe sind aktiv</translation>
    </message>
    <message numerus="yes">
        <source>%n job(s) are still running or queued. Closing cancels them cleanly: each run keeps its last checkpoint and can be resumed from the Runs view. Close anyway?</source>
        <translation>
            <numerusform>%n Auftrag läuft noch oder wartet. Beim Schließen wird er sauber abgebrochen: jeder Lauf behält seinen letzten Checkpoint und kann in der Ansicht „Läufe“ fortgesetzt werden. Trotzdem schließen?</numerusform>
            <numerusform>%n Aufträge laufen noch oder warten. Beim Schließen werden sie sauber abgebrochen: jeder Lauf behält seinen letzten Checkpoint und kann in der Ansicht „Läufe“ fortgesetzt werden. Trotzdem schließen?</numerusform>
        </translation>
    </message>
    <message>
        <source>Re&amp;port of a group…</source>
        <translation>Be&amp;richt einer Gruppe…</translation>
    </message>
    <message>
        <source>Experiment</source>
        <translation>Experiment</translation>
    </message>
    <message>
        <source>Open experiment &amp;spec…</source>
        <translation>Experiment&amp;spezifikation öffnen…</translation>
    </message>
    <message>
        <source>Open an experiment spec</source>
        <translation>Eine Experimentspezifikation öffnen</translation>
    </message>
    <message>
        <source>Experiment spec (*.json)</source>
        <translation>Experimentspezifikation (*.json)</translation>
    </message>
    <message>
        <source>&amp;User Guide</source>
        <translation>&amp;Benutzerhandbuch</translation>
    </message>
    <message>
        <source>GrowBench User Guide</source>
        <translation>GrowBench-Benutzerhandbuch</translation>
    </message>
    <message>
        <source>Not a model folder, an experiment spec or a run store: %1</source>
        <translation>Kein Modellordner, keine Experimentspezifikation und kein Laufspeicher: %1</translation>
    </message>
    <message>
        <source>The recommended plan is in the Grow planner; the launch form&apos;s learning rate is %1 and its steps %2.</source>
        <translation>Der empfohlene Plan ist im Wachstumsplaner; das Startformular hat die Lernrate %1 und %2 Schritte.</translation>
    </message>
    <message>
        <source>&amp;Suggest a plan…</source>
        <translation>Plan &amp;vorschlagen…</translation>
    </message>
    <message>
        <source>A search is running</source>
        <translation>Eine Suche läuft</translation>
    </message>
    <message>
        <source>“Suggest a plan” is still searching. Closing cancels it cleanly; started again with the same fields, it continues. Close anyway?</source>
        <translation>„Plan vorschlagen“ sucht noch. Schließen bricht die Suche sauber ab; mit denselben Feldern erneut gestartet, setzt sie fort. Trotzdem schließen?</translation>
    </message>
</context>
<context>
    <name>gb::gui::ModelEditor</name>
    <message>
        <source>A model folder (Hugging Face or GrowBench)</source>
        <translation>Ein Modellordner (Hugging Face oder GrowBench)</translation>
    </message>
    <message>
        <source>A built-in preset, trained from scratch</source>
        <translation>Eine eingebaute Vorlage, von Grund auf trainiert</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>Modell:</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>Text</translation>
    </message>
    <message>
        <source>tokenizer source</source>
        <translation>Tokenizer-Quelle</translation>
    </message>
    <message>
        <source>Tokenizer training text (default: the first stage&apos;s data)</source>
        <translation>Trainingstext des Tokenizers (Standard: die Daten der ersten Stufe)</translation>
    </message>
    <message>
        <source>stage %1</source>
        <translation>Stufe %1</translation>
    </message>
    <message>
        <source>stage</source>
        <translation>Stufe</translation>
    </message>
    <message>
        <source>Pretraining stages (in order)</source>
        <translation>Vortrainingsstufen (in Reihenfolge)</translation>
    </message>
    <message>
        <source>Choose a model folder.</source>
        <translation>Einen Modellordner wählen.</translation>
    </message>
</context>
<context>
    <name>gb::gui::ModelView</name>
    <message>
        <source>Could not load tokenizer.json: %1</source>
        <translation>tokenizer.json konnte nicht geladen werden: %1</translation>
    </message>
    <message>
        <source>Warning: the tokenizer has %1 tokens but the model&apos;s vocabulary has %2.</source>
        <translation>Warnung: der Tokenizer hat %1 Tokens, das Vokabular des Modells aber %2.</translation>
    </message>
    <message>
        <source>Loading cancelled.</source>
        <translation>Laden abgebrochen.</translation>
    </message>
    <message>
        <source>Could not load the model: %1</source>
        <translation>Das Modell konnte nicht geladen werden: %1</translation>
    </message>
    <message>
        <source>%1 · %2 layers · hidden %3 · MLP %4 · heads %5/%6 · vocabulary %7 · %8 parameters</source>
        <translation>%1 · %2 Schichten · verborgen %3 · MLP %4 · Heads %5/%6 · Vokabular %7 · %8 Parameter</translation>
    </message>
    <message>
        <source>Loaded.</source>
        <translation>Geladen.</translation>
    </message>
    <message>
        <source>Generation failed: %1</source>
        <translation>Generierung fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Open folder…</source>
        <translation>Ordner öffnen…</translation>
    </message>
    <message>
        <source>A Hugging Face model folder (config.json, model.safetensors, tokenizer.json) or a GrowBench checkpoint</source>
        <translation>Ein Hugging-Face-Modellordner (config.json, model.safetensors, tokenizer.json) oder ein GrowBench-Checkpoint</translation>
    </message>
    <message>
        <source>Preset:</source>
        <translation>Voreinstellung:</translation>
    </message>
    <message>
        <source>Built-in base models found on this machine (shipped, or built by a run&apos;s pretrain stage and cached)</source>
        <translation>Auf diesem Rechner gefundene eingebaute Basismodelle (mitgeliefert oder von der Vortrainingsphase eines Laufs erstellt und zwischengespeichert)</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>Neu laden</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>No model open.</source>
        <translation>Kein Modell geöffnet.</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>Architektur</translation>
    </message>
    <message>
        <source>Config</source>
        <translation>Konfiguration</translation>
    </message>
    <message>
        <source>No tokenizer.</source>
        <translation>Kein Tokenizer.</translation>
    </message>
    <message>
        <source>Type text to see its tokens</source>
        <translation>Text eingeben, um seine Tokens zu sehen</translation>
    </message>
    <message>
        <source>Tokenizer</source>
        <translation>Tokenizer</translation>
    </message>
    <message>
        <source>A prompt for a quick sanity check</source>
        <translation>Ein Prompt für eine schnelle Plausibilitätsprüfung</translation>
    </message>
    <message>
        <source>Prompt:</source>
        <translation>Prompt:</translation>
    </message>
    <message>
        <source>New tokens:</source>
        <translation>Neue Tokens:</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>Generieren</translation>
    </message>
    <message>
        <source>Open a model folder</source>
        <translation>Einen Modellordner öffnen</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s): %1&lt;br/&gt;ids: %2</source>
        <translation>
            <numerusform>%n Token: %1&lt;br/&gt;IDs: %2</numerusform>
            <numerusform>%n Tokens: %1&lt;br/&gt;IDs: %2</numerusform>
        </translation>
    </message>
    <message>
        <source>(no preset built yet)</source>
        <translation>(noch keine Voreinstellung erstellt)</translation>
    </message>
    <message>
        <source>(choose a preset)</source>
        <translation>(Voreinstellung wählen)</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>%1 is not a model folder: config.json is missing.</source>
        <translation>%1 ist kein Modellordner: config.json fehlt.</translation>
    </message>
    <message>
        <source>%1 holds only pickled PyTorch checkpoints (*.bin): GrowBench refuses them because unpickling can run code. Convert the model to safetensors first.</source>
        <translation>%1 enthält nur gepickelte PyTorch-Checkpoints (*.bin): GrowBench lehnt sie ab, weil beim Entpickeln Code ausgeführt werden kann. Konvertieren Sie das Modell zuerst nach safetensors.</translation>
    </message>
    <message>
        <source>This config.json is not supported: %1</source>
        <translation>Diese config.json wird nicht unterstützt: %1</translation>
    </message>
    <message>
        <source>Loading tokenizer…</source>
        <translation>Lade Tokenizer…</translation>
    </message>
    <message>
        <source>This folder has no tokenizer.json: probes, runs and generation need one.</source>
        <translation>Dieser Ordner enthält keine tokenizer.json: Sondierungen, Läufe und Generierung benötigen eine.</translation>
    </message>
    <message>
        <source>Loading the architecture…</source>
        <translation>Lade die Architektur…</translation>
    </message>
    <message>
        <source>Open a model first.</source>
        <translation>Öffnen Sie zuerst ein Modell.</translation>
    </message>
    <message>
        <source>This model folder has no tokenizer.json.</source>
        <translation>Dieser Modellordner enthält keine tokenizer.json.</translation>
    </message>
    <message>
        <source>Generating…</source>
        <translation>Generiere…</translation>
    </message>
    <message>
        <source>This growbench-cli has no generate command yet.</source>
        <translation>Dieses growbench-cli hat noch keinen Befehl generate.</translation>
    </message>
</context>
<context>
    <name>gb::gui::ParallelCoordinates</name>
    <message>
        <source>No axes: choose hyper-parameters and figures</source>
        <translation>Keine Achsen: Hyperparameter und Kennzahlen wählen</translation>
    </message>
    <message>
        <source>(log)</source>
        <translation>(log)</translation>
    </message>
    <message>
        <source> (lower is better)</source>
        <translation> (niedriger ist besser)</translation>
    </message>
    <message>
        <source> (higher is better)</source>
        <translation> (höher ist besser)</translation>
    </message>
    <message>
        <source>Brush: %1 … %2 (click the axis to clear)</source>
        <translation>Bereich: %1 … %2 (Klick auf die Achse löscht ihn)</translation>
    </message>
    <message>
        <source>Drag along the axis to filter the runs by a range</source>
        <translation>Entlang der Achse ziehen, um die Läufe nach einem Bereich zu filtern</translation>
    </message>
</context>
<context>
    <name>gb::gui::PlanForm</name>
    <message>
        <source>Variant:</source>
        <translation>Variante:</translation>
    </message>
    <message>
        <source>GrowBench does not know the variant “%1”: its keys are kept as JSON below.</source>
        <translation>GrowBench kennt die Variante „%1“ nicht: Ihre Schlüssel bleiben unten als JSON erhalten.</translation>
    </message>
    <message>
        <source>(The default depends on the other keys.)</source>
        <translation>(Der Standardwert hängt von den anderen Schlüsseln ab.)</translation>
    </message>
    <message>
        <source>Other keys</source>
        <translation>Weitere Schlüssel</translation>
    </message>
    <message>
        <source>Keys of this plan without a field above, as JSON</source>
        <translation>Schlüssel dieses Plans ohne eigenes Feld oben, als JSON</translation>
    </message>
</context>
<context>
    <name>gb::gui::ReportDialog</name>
    <message>
        <source>Report of a run group</source>
        <translation>Bericht einer Lauf-Gruppe</translation>
    </message>
    <message>
        <source>The runs one spec started together (its seeds and sweep points).</source>
        <translation>Die Läufe, die eine Spezifikation gemeinsam gestartet hat (ihre Seeds und Sweep-Punkte).</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>Gruppe</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>Wählen…</translation>
    </message>
    <message>
        <source>Export to</source>
        <translation>Exportieren nach</translation>
    </message>
    <message>
        <source>Claim</source>
        <translation>Behauptung</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>Urteil</translation>
    </message>
    <message>
        <source>What decided it</source>
        <translation>Was entschied</translation>
    </message>
    <message>
        <source>Write report</source>
        <translation>Bericht schreiben</translation>
    </message>
    <message>
        <source>Open in browser</source>
        <translation>Im Browser öffnen</translation>
    </message>
    <message>
        <source>The report could not be written: %1</source>
        <translation>Der Bericht konnte nicht geschrieben werden: %1</translation>
    </message>
    <message>
        <source>Written to %1</source>
        <translation>Geschrieben nach %1</translation>
    </message>
    <message>
        <source>This store has no run groups yet.</source>
        <translation>Dieser Speicher hat noch keine Lauf-Gruppen.</translation>
    </message>
    <message>
        <source>Export report</source>
        <translation>Bericht exportieren</translation>
    </message>
    <message>
        <source>HTML pages (*.html)</source>
        <translation>HTML-Seiten (*.html)</translation>
    </message>
    <message>
        <source>Writing the report…</source>
        <translation>Der Bericht wird geschrieben…</translation>
    </message>
    <message>
        <source>This group&apos;s spec states no claims: the report holds its table and curves.</source>
        <translation>Die Spezifikation dieser Gruppe nennt keine Behauptungen: Der Bericht enthält ihre Tabelle und Kurven.</translation>
    </message>
</context>
<context>
    <name>gb::gui::RunManager</name>
    <message>
        <source>stage: %1</source>
        <translation>Phase: %1</translation>
    </message>
    <message>
        <source>evaluated at step %1</source>
        <translation>ausgewertet bei Schritt %1</translation>
    </message>
    <message>
        <source>checkpoint at step %1: %2</source>
        <translation>Checkpoint bei Schritt %1: %2</translation>
    </message>
    <message>
        <source>model grown</source>
        <translation>Modell erweitert</translation>
    </message>
    <message>
        <source>growbench-cli crashed (exit status %1)</source>
        <translation>growbench-cli ist abgestürzt (Exit-Status %1)</translation>
    </message>
    <message>
        <source>unreadable progress line: %1</source>
        <translation>unlesbare Fortschrittszeile: %1</translation>
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
        <translation>Name</translation>
    </message>
    <message>
        <source>Variant</source>
        <translation>Variante</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>Schichten</translation>
    </message>
    <message>
        <source>Trainable</source>
        <translation>Trainierbar</translation>
    </message>
    <message>
        <source>Forgetting</source>
        <translation>Vergessen</translation>
    </message>
    <message>
        <source>Learning</source>
        <translation>Lernen</translation>
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
        <translation>Dauer</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>Fortschritt</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>Tags</translation>
    </message>
    <message>
        <source>Trainable parameters as a share of the base model&apos;s parameters</source>
        <translation>Trainierbare Parameter als Anteil an den Parametern des Basismodells</translation>
    </message>
    <message>
        <source>Relative increase of the original-domain perplexity from step 0 to the latest evaluation (lower is better)</source>
        <translation>Relativer Anstieg der Perplexität auf der Ursprungsdomäne von Schritt 0 bis zur letzten Auswertung (niedriger ist besser)</translation>
    </message>
    <message>
        <source>Relative decrease of the new-domain perplexity from step 0 to the latest evaluation (higher is better)</source>
        <translation>Relative Abnahme der Perplexität auf der neuen Domäne von Schritt 0 bis zur letzten Auswertung (höher ist besser)</translation>
    </message>
    <message>
        <source>Overall performance: mean accuracy on all tasks after the last task</source>
        <translation>Gesamtleistung: mittlere Genauigkeit auf allen Aufgaben nach der letzten Aufgabe</translation>
    </message>
    <message>
        <source>Backward transfer: mean change of earlier tasks&apos; accuracy after the last task (negative = forgetting)</source>
        <translation>Rückwärtstransfer: mittlere Änderung der Genauigkeit früherer Aufgaben nach der letzten Aufgabe (negativ = Vergessen)</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 tok/s</source>
        <translation>%1 Tok./s</translation>
    </message>
    <message>
        <source>ETA %1</source>
        <translation>noch %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1 trainable, %2 added</source>
        <translation>%1 trainierbar, %2 hinzugefügt</translation>
    </message>
    <message>
        <source>Processes</source>
        <translation>Prozesse</translation>
    </message>
    <message>
        <source>Data-parallel worker processes of the run and their collective backend (gloo on CPU, nccl on CUDA); 1 = one process</source>
        <translation>Datenparallele Worker-Prozesse des Laufs und ihr Kollektiv-Backend (gloo auf der CPU, nccl auf CUDA); 1 = ein Prozess</translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <source>%1 (step %2)</source>
        <translation>%1 (Schritt %2)</translation>
    </message>
    <message>
        <source>No figure: the run has no evaluation after step 0 (%1)</source>
        <translation>Keine Kennzahl: der Lauf hat keine Auswertung nach Schritt 0 (%1)</translation>
    </message>
    <message>
        <source>Original-domain perplexity: %1 at step 0, %2 at step %3</source>
        <translation>Perplexität der Ursprungsdomäne: %1 bei Schritt 0, %2 bei Schritt %3</translation>
    </message>
    <message>
        <source>New-domain perplexity: %1 at step 0, %2 at step %3</source>
        <translation>Perplexität der neuen Domäne: %1 bei Schritt 0, %2 bei Schritt %3</translation>
    </message>
    <message>
        <source>Partial: the run is %1; step %2 of %3</source>
        <translation>Unvollständig: der Lauf ist %1; Schritt %2 von %3</translation>
    </message>
</context>
<context>
    <name>gb::gui::RunsView</name>
    <message>
        <source>Job “%1” failed: %2</source>
        <translation>Auftrag „%1“ fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>Job “%1” cancelled.</source>
        <translation>Auftrag „%1“ abgebrochen.</translation>
    </message>
    <message>
        <source>Job “%1” finished (exit code %2).</source>
        <translation>Auftrag „%1“ beendet (Exit-Code %2).</translation>
    </message>
    <message>
        <source>none: open one in the Model view</source>
        <translation>keines: öffnen Sie eines in der Ansicht „Modell“</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>Starten</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>Daten</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>Name:</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>Modell:</translation>
    </message>
    <message>
        <source>New-domain data:</source>
        <translation>Daten der neuen Domäne:</translation>
    </message>
    <message>
        <source>training text (file or folder)</source>
        <translation>Trainingstext (Datei oder Ordner)</translation>
    </message>
    <message>
        <source>The new-domain training data: text, JSONL or fortunes</source>
        <translation>Die Trainingsdaten der neuen Domäne: Text, JSONL oder fortunes</translation>
    </message>
    <message>
        <source>New-domain eval:</source>
        <translation>Auswertung neue Domäne:</translation>
    </message>
    <message>
        <source>optional: else 10 % held out of the training data</source>
        <translation>optional: sonst werden 10 % der Trainingsdaten zurückgehalten</translation>
    </message>
    <message>
        <source>Measures learning (new-domain perplexity)</source>
        <translation>Misst das Lernen (Perplexität auf der neuen Domäne)</translation>
    </message>
    <message>
        <source>Original-domain eval:</source>
        <translation>Auswertung Ursprungsdomäne:</translation>
    </message>
    <message>
        <source>original-domain text</source>
        <translation>Text der Ursprungsdomäne</translation>
    </message>
    <message>
        <source>Measures forgetting (original-domain perplexity)</source>
        <translation>Misst das Vergessen (Perplexität auf der Ursprungsdomäne)</translation>
    </message>
    <message>
        <source>Plans:</source>
        <translation>Pläne:</translation>
    </message>
    <message>
        <source>Steps:</source>
        <translation>Schritte:</translation>
    </message>
    <message>
        <source>Optimizer steps</source>
        <translation>Optimiererschritte</translation>
    </message>
    <message>
        <source>Peak learning rate (cosine schedule with warm-up)</source>
        <translation>Maximale Lernrate (Kosinus-Zeitplan mit Aufwärmphase)</translation>
    </message>
    <message>
        <source>LR:</source>
        <translation>LR:</translation>
    </message>
    <message>
        <source>Batch:</source>
        <translation>Batch:</translation>
    </message>
    <message>
        <source>Sequences per micro-batch</source>
        <translation>Sequenzen pro Mikro-Batch</translation>
    </message>
    <message>
        <source>Seq len:</source>
        <translation>Sequenzlänge:</translation>
    </message>
    <message>
        <source>Tokens per sequence</source>
        <translation>Tokens pro Sequenz</translation>
    </message>
    <message>
        <source>Device:</source>
        <translation>Gerät:</translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation>Seed:</translation>
    </message>
    <message>
        <source>Seed of data order and initialisation</source>
        <translation>Seed für Datenreihenfolge und Initialisierung</translation>
    </message>
    <message>
        <source>Eval every:</source>
        <translation>Auswerten alle:</translation>
    </message>
    <message>
        <source>Steps between evaluations (step 0 and the last step are always evaluated)</source>
        <translation>Schritte zwischen Auswertungen (Schritt 0 und der letzte Schritt werden immer ausgewertet)</translation>
    </message>
    <message>
        <source>Eval tokens:</source>
        <translation>Auswertungs-Tokens:</translation>
    </message>
    <message>
        <source>Token budget of each evaluation set</source>
        <translation>Token-Budget jeder Auswertungsmenge</translation>
    </message>
    <message>
        <source>Write the experiment spec to the workspace and start growbench-cli run</source>
        <translation>Die Experimentspezifikation in den Arbeitsbereich schreiben und growbench-cli run starten</translation>
    </message>
    <message>
        <source>Run a spec file…</source>
        <translation>Spezifikationsdatei ausführen…</translation>
    </message>
    <message>
        <source>Launch an existing experiment spec (JSON), e.g. resources/experiments/quickstart.json</source>
        <translation>Eine vorhandene Experimentspezifikation (JSON) starten, z. B. resources/experiments/quickstart.json</translation>
    </message>
    <message>
        <source>Filter runs</source>
        <translation>Läufe filtern</translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation>Alle Status</translation>
    </message>
    <message>
        <source>Cancel run</source>
        <translation>Lauf abbrechen</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <source>Show curves</source>
        <translation>Kurven anzeigen</translation>
    </message>
    <message>
        <source>Job queue</source>
        <translation>Auftragswarteschlange</translation>
    </message>
    <message>
        <source>Log: select a run</source>
        <translation>Protokoll: wählen Sie einen Lauf</translation>
    </message>
    <message>
        <source>Experiment spec</source>
        <translation>Experimentspezifikation</translation>
    </message>
    <message>
        <source>Experiment spec (*.json)</source>
        <translation>Experimentspezifikation (*.json)</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Cancel job</source>
        <translation>Auftrag abbrechen</translation>
    </message>
    <message>
        <source>Copy command line</source>
        <translation>Befehlszeile kopieren</translation>
    </message>
    <message>
        <source>Command line copied: run it in a terminal to keep it independent of the GUI.</source>
        <translation>Befehlszeile kopiert: führen Sie sie in einem Terminal aus, um sie unabhängig von der Oberfläche laufen zu lassen.</translation>
    </message>
    <message>
        <source>Remove finished jobs</source>
        <translation>Beendete Aufträge entfernen</translation>
    </message>
    <message>
        <source>the Grow planner&apos;s current plan (queue plans there to compare several)</source>
        <translation>der aktuelle Plan des Wachstumsplaners (reihen Sie dort Pläne ein, um mehrere zu vergleichen)</translation>
    </message>
    <message numerus="yes">
        <source>%n queued plan(s): %1</source>
        <translation>
            <numerusform>%n eingereihter Plan: %1</numerusform>
            <numerusform>%n eingereihte Pläne: %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Open a model in the Model view first.</source>
        <translation>Öffnen Sie zuerst ein Modell in der Ansicht „Modell“.</translation>
    </message>
    <message>
        <source>The model folder has no tokenizer.json.</source>
        <translation>Der Modellordner enthält keine tokenizer.json.</translation>
    </message>
    <message>
        <source>Choose the new-domain training data.</source>
        <translation>Wählen Sie die Trainingsdaten der neuen Domäne.</translation>
    </message>
    <message>
        <source>No plan: build one in the Grow planner.</source>
        <translation>Kein Plan: erstellen Sie einen im Wachstumsplaner.</translation>
    </message>
    <message>
        <source>The spec is not valid: %1</source>
        <translation>Die Spezifikation ist ungültig: %1</translation>
    </message>
    <message>
        <source>Open a workspace first.</source>
        <translation>Öffnen Sie zuerst einen Arbeitsbereich.</translation>
    </message>
    <message>
        <source>Cannot launch</source>
        <translation>Start nicht möglich</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>%1 konnte nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>Launched %1 (spec %2).</source>
        <translation>%1 gestartet (Spezifikation %2).</translation>
    </message>
    <message>
        <source>Cancelling run %1…</source>
        <translation>Breche Lauf %1 ab…</translation>
    </message>
    <message>
        <source>Run %1 runs on %2: cancel it there.</source>
        <translation>Lauf %1 läuft auf %2: brechen Sie ihn dort ab.</translation>
    </message>
    <message>
        <source>Run %1 was started outside this window (process %2). Ask it to stop? It is cancelled cleanly and can be resumed.</source>
        <translation>Lauf %1 wurde außerhalb dieses Fensters gestartet (Prozess %2). Zum Anhalten auffordern? Er wird sauber abgebrochen und kann fortgesetzt werden.</translation>
    </message>
    <message>
        <source>Could not signal process %1.</source>
        <translation>Prozess %1 konnte kein Signal gesendet werden.</translation>
    </message>
    <message>
        <source>Asked process %1 to cancel run %2.</source>
        <translation>Prozess %1 wurde aufgefordert, Lauf %2 abzubrechen.</translation>
    </message>
    <message>
        <source>Only interrupted, cancelled or failed runs can be resumed.</source>
        <translation>Nur unterbrochene, abgebrochene oder fehlgeschlagene Läufe können fortgesetzt werden.</translation>
    </message>
    <message>
        <source>Run %1 is already queued or running.</source>
        <translation>Lauf %1 wartet bereits oder läuft.</translation>
    </message>
    <message>
        <source>resume run %1</source>
        <translation>Lauf %1 fortsetzen</translation>
    </message>
    <message>
        <source>Resuming run %1…</source>
        <translation>Setze Lauf %1 fort…</translation>
    </message>
    <message>
        <source>Log of run %1: %2</source>
        <translation>Protokoll von Lauf %1: %2</translation>
    </message>
    <message>
        <source>Log of run %1</source>
        <translation>Protokoll von Lauf %1</translation>
    </message>
    <message>
        <source>Processes:</source>
        <translation>Prozesse:</translation>
    </message>
    <message>
        <source>Data-parallel worker processes on this machine (growbench-cli run --nproc-per-node): each trains on its share of every batch, with the same numbers as one process; the batch needs at least one sequence per process</source>
        <translation>Datenparallele Worker-Prozesse auf diesem Rechner (growbench-cli run --nproc-per-node): jeder trainiert auf seinem Anteil jedes Batches, mit denselben Zahlen wie ein Prozess; der Batch braucht mindestens eine Sequenz je Prozess</translation>
    </message>
    <message>
        <source>This build has no distributed support (LibTorch&apos;s c10d with Gloo; install libgloo-dev and rebuild)</source>
        <translation>Dieser Build unterstützt keine verteilten Läufe (c10d von LibTorch mit Gloo; libgloo-dev installieren und neu bauen)</translation>
    </message>
    <message numerus="yes">
        <source>The spec expands to %n run(s) (plans × sweep points × seeds)</source>
        <translation>
            <numerusform>Die Spezifikation ergibt %n Lauf (Pläne × Sweep-Punkte × Seeds)</numerusform>
            <numerusform>Die Spezifikation ergibt %n Läufe (Pläne × Sweep-Punkte × Seeds)</numerusform>
        </translation>
    </message>
    <message>
        <source>File…</source>
        <translation>Datei…</translation>
    </message>
    <message>
        <source>Choose a file (files without an extension are shown too)</source>
        <translation>Eine Datei wählen (Dateien ohne Endung werden auch gezeigt)</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>Ordner…</translation>
    </message>
    <message>
        <source>Choose a folder (e.g. a folder of fortune files)</source>
        <translation>Einen Ordner wählen (z. B. einen Ordner mit Fortune-Dateien)</translation>
    </message>
    <message>
        <source>Edit as experiment…</source>
        <translation>Als Experiment bearbeiten…</translation>
    </message>
    <message>
        <source>Open this form&apos;s spec in the experiment editor: replay, held-out test sets, tasks, task sequences, probes, checkpoints and every other key of a spec</source>
        <translation>Die Spezifikation dieses Formulars im Experimenteditor öffnen: Replay, zurückgehaltene Testmengen, Aufgaben, Aufgabenfolgen, Sonden, Checkpoints und jeder andere Schlüssel einer Spezifikation</translation>
    </message>
    <message>
        <source>Open spec in the experiment editor</source>
        <translation>Spezifikation im Experimenteditor öffnen</translation>
    </message>
    <message>
        <source>The new-domain training data</source>
        <translation>Die Trainingsdaten der neuen Domäne</translation>
    </message>
    <message>
        <source>The new-domain evaluation data</source>
        <translation>Die Auswertungsdaten der neuen Domäne</translation>
    </message>
    <message>
        <source>The original-domain evaluation data</source>
        <translation>Die Auswertungsdaten der ursprünglichen Domäne</translation>
    </message>
    <message>
        <source>%1 does not exist: %2</source>
        <translation>%1 existiert nicht: %2</translation>
    </message>
    <message>
        <source>Continue an interrupted, cancelled or failed run from its newest valid checkpoint</source>
        <translation>Einen unterbrochenen, abgebrochenen oder fehlgeschlagenen Lauf ab seinem neuesten gültigen Checkpoint fortsetzen</translation>
    </message>
    <message>
        <source>Start again</source>
        <translation>Neu starten</translation>
    </message>
    <message>
        <source>Start a stopped run that has no checkpoint (killed before its first one, or queued by a worker that ended) from the beginning</source>
        <translation>Einen angehaltenen Lauf ohne Checkpoint (vor dem ersten beendet oder von einem beendeten Worker eingereiht) von vorn starten</translation>
    </message>
    <message>
        <source>Only interrupted, cancelled or failed runs can be started again.</source>
        <translation>Nur unterbrochene, abgebrochene oder fehlgeschlagene Läufe können neu gestartet werden.</translation>
    </message>
    <message>
        <source>Run %1 has no checkpoint to resume from: start it again (Start again, or its context menu).</source>
        <translation>Lauf %1 hat keinen Checkpoint zum Fortsetzen: starten Sie ihn neu (Neu starten oder sein Kontextmenü).</translation>
    </message>
    <message>
        <source>Run %1 has a checkpoint: resume it instead.</source>
        <translation>Lauf %1 hat einen Checkpoint: setzen Sie ihn stattdessen fort.</translation>
    </message>
    <message>
        <source>start run %1 again</source>
        <translation>Lauf %1 neu starten</translation>
    </message>
    <message>
        <source>Starting run %1 again from the beginning…</source>
        <translation>Lauf %1 wird von vorn neu gestartet…</translation>
    </message>
    <message>
        <source>Export run %1</source>
        <translation>Lauf %1 exportieren</translation>
    </message>
    <message>
        <source>Model as a Hugging Face folder…</source>
        <translation>Modell als Hugging-Face-Ordner…</translation>
    </message>
    <message>
        <source>LoRA adapter as a PEFT folder…</source>
        <translation>LoRA-Adapter als PEFT-Ordner…</translation>
    </message>
    <message>
        <source>Metrics as TensorBoard events…</source>
        <translation>Metriken als TensorBoard-Ereignisse…</translation>
    </message>
    <message>
        <source>Metrics as CSV…</source>
        <translation>Metriken als CSV…</translation>
    </message>
    <message>
        <source>Metrics as JSON lines…</source>
        <translation>Metriken als JSON-Zeilen…</translation>
    </message>
    <message>
        <source>Run %1 is not in this store.</source>
        <translation>Lauf %1 ist nicht in diesem Speicher.</translation>
    </message>
    <message>
        <source>Run %1 has no checkpoint: the model of a run is exported from its latest checkpoint.</source>
        <translation>Lauf %1 hat keinen Checkpoint: das Modell eines Laufs wird aus seinem letzten Checkpoint exportiert.</translation>
    </message>
    <message>
        <source>Only LoRA runs can be written as a PEFT adapter (run %1 is %2).</source>
        <translation>Nur LoRA-Läufe können als PEFT-Adapter geschrieben werden (Lauf %1 ist %2).</translation>
    </message>
    <message>
        <source>of no known variant</source>
        <translation>keiner bekannten Variante</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>JSON lines (*.jsonl)</source>
        <translation>JSON-Zeilen (*.jsonl)</translation>
    </message>
    <message>
        <source>Export run %1: the folder to write</source>
        <translation>Lauf %1 exportieren: der zu schreibende Ordner</translation>
    </message>
    <message>
        <source>Export the metrics of run %1</source>
        <translation>Metriken von Lauf %1 exportieren</translation>
    </message>
    <message>
        <source>Replace folder</source>
        <translation>Ordner ersetzen</translation>
    </message>
    <message>
        <source>%1 exists and is not empty. Replace it as a whole with the export?</source>
        <translation>%1 existiert und ist nicht leer. Als Ganzes durch den Export ersetzen?</translation>
    </message>
    <message>
        <source>An export is still running: wait for it to finish.</source>
        <translation>Ein Export läuft noch: warten Sie, bis er fertig ist.</translation>
    </message>
    <message>
        <source>Run %1 exported to %2.</source>
        <translation>Lauf %1 nach %2 exportiert.</translation>
    </message>
    <message>
        <source>Export of run %1 failed: %2</source>
        <translation>Export von Lauf %1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>Exporting run %1 to %2…</source>
        <translation>Lauf %1 wird nach %2 exportiert…</translation>
    </message>
    <message>
        <source>Runs at once:</source>
        <translation>Läufe gleichzeitig:</translation>
    </message>
    <message>
        <source>Runs of the experiment (plans, sweep points, seeds) that train side by side, each in its own worker process (growbench-cli run --jobs): one per core is fastest on a CPU; each run&apos;s numbers are those of the run alone</source>
        <translation>Läufe des Experiments (Pläne, Sweep-Punkte, Seeds), die nebeneinander trainieren, jeder in einem eigenen Worker-Prozess (growbench-cli run --jobs): einer pro Kern ist auf einer CPU am schnellsten; die Zahlen jedes Laufs sind die des Laufs allein</translation>
    </message>
</context>
<context>
    <name>gb::gui::SettingsDialog</name>
    <message>
        <source>System language</source>
        <translation>Systemsprache</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Device of new runs: cpu, cuda or cuda:N</source>
        <translation>Gerät neuer Läufe: cpu, cuda oder cuda:N</translation>
    </message>
    <message>
        <source>Default device:</source>
        <translation>Standardgerät:</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>Workspace at start:</source>
        <translation>Arbeitsbereich beim Start:</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>Sprache:</translation>
    </message>
    <message>
        <source>The colours follow the system theme (light or dark); plots follow it too.</source>
        <translation>Die Farben folgen dem Systemthema (hell oder dunkel); Diagramme ebenfalls.</translation>
    </message>
    <message>
        <source>Theme:</source>
        <translation>Thema:</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>Arbeitsbereich</translation>
    </message>
</context>
<context>
    <name>gb::gui::SourceEditor</name>
    <message>
        <source>(required)</source>
        <translation>(erforderlich)</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>(keine)</translation>
    </message>
    <message>
        <source>Text corpus</source>
        <translation>Textkorpus</translation>
    </message>
    <message>
        <source>QA JSONL</source>
        <translation>QA-JSONL</translation>
    </message>
    <message>
        <source>Biography</source>
        <translation>Biografie</translation>
    </message>
    <message>
        <source>Text corpus: a file or folder of text, JSONL or fortunes; QA JSONL: question and answer per line; Biography: a part of the synthetic biography benchmark</source>
        <translation>Textkorpus: eine Datei oder ein Ordner mit Text, JSONL oder Fortunes; QA-JSONL: Frage und Antwort pro Zeile; Biografie: ein Teil des synthetischen Biografie-Benchmarks</translation>
    </message>
    <message>
        <source>A file or a folder (text, JSONL, fortunes, QA JSONL)</source>
        <translation>Eine Datei oder ein Ordner (Text, JSONL, Fortunes, QA-JSONL)</translation>
    </message>
    <message>
        <source>Options</source>
        <translation>Optionen</translation>
    </message>
    <message>
        <source>Format, split and limits of this source</source>
        <translation>Format, Aufteilung und Grenzen dieser Quelle</translation>
    </message>
    <message>
        <source>Required: choose a data source.</source>
        <translation>Erforderlich: eine Datenquelle wählen.</translation>
    </message>
    <message>
        <source>Give a path.</source>
        <translation>Einen Pfad angeben.</translation>
    </message>
</context>
<context>
    <name>gb::gui::SpecDiffModel</name>
    <message>
        <source>(absent)</source>
        <translation>(fehlt)</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>Schlüssel</translation>
    </message>
</context>
<context>
    <name>gb::gui::SpecField</name>
    <message>
        <source>yes</source>
        <translation>ja</translation>
    </message>
    <message>
        <source>no</source>
        <translation>nein</translation>
    </message>
    <message>
        <source>(required)</source>
        <translation>(erforderlich)</translation>
    </message>
    <message>
        <source>(not set)</source>
        <translation>(nicht gesetzt)</translation>
    </message>
    <message>
        <source>(default: %1)</source>
        <translation>(Standard: %1)</translation>
    </message>
    <message>
        <source>File…</source>
        <translation>Datei…</translation>
    </message>
    <message>
        <source>Choose a file (files without an extension are shown too)</source>
        <translation>Eine Datei wählen (Dateien ohne Endung werden auch gezeigt)</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>Ordner…</translation>
    </message>
    <message>
        <source>Choose a folder (a model folder, a folder of fortune files)</source>
        <translation>Einen Ordner wählen (einen Modellordner, einen Ordner mit Fortune-Dateien)</translation>
    </message>
    <message>
        <source>“all”, a list such as 0-3, 7, or a policy as JSON, e.g. {&quot;policy&quot;: &quot;least-important&quot;, &quot;k&quot;: 2, &quot;score&quot;: &quot;masking&quot;}</source>
        <translation>„all“, eine Liste wie 0-3, 7 oder eine Richtlinie als JSON, z. B. {&quot;policy&quot;: &quot;least-important&quot;, &quot;k&quot;: 2, &quot;score&quot;: &quot;masking&quot;}</translation>
    </message>
    <message>
        <source>Comma-separated; allowed: %1</source>
        <translation>Durch Kommas getrennt; erlaubt: %1</translation>
    </message>
    <message>
        <source>Key: %1. Bold: set in the spec; otherwise the default applies.</source>
        <translation>Schlüssel: %1. Fett: in der Spezifikation gesetzt; sonst gilt der Standardwert.</translation>
    </message>
    <message>
        <source>Expected a whole number.</source>
        <translation>Eine ganze Zahl erwartet.</translation>
    </message>
    <message>
        <source>Expected a number.</source>
        <translation>Eine Zahl erwartet.</translation>
    </message>
    <message>
        <source>Not valid JSON.</source>
        <translation>Kein gültiges JSON.</translation>
    </message>
    <message>
        <source>Expected a JSON object {…}.</source>
        <translation>Ein JSON-Objekt {…} erwartet.</translation>
    </message>
    <message>
        <source>Expected “all”, a list such as 0-3, 7, or a JSON policy object.</source>
        <translation>„all“, eine Liste wie 0-3, 7 oder ein JSON-Richtlinienobjekt erwartet.</translation>
    </message>
    <message>
        <source>Unknown: %1 (allowed: %2)</source>
        <translation>Unbekannt: %1 (erlaubt: %2)</translation>
    </message>
    <message>
        <source>Required.</source>
        <translation>Erforderlich.</translation>
    </message>
    <message>
        <source>Must be in %1%2, %3%4.</source>
        <translation>Muss in %1%2, %3%4 liegen.</translation>
    </message>
</context>
<context>
    <name>gb::gui::SuggestDialog</name>
    <message>
        <source>Choose the model: open one in the Model view.</source>
        <translation>Wählen Sie das Modell: öffnen Sie eines in der Ansicht „Modell“.</translation>
    </message>
    <message>
        <source>The model folder has no config.json: %1</source>
        <translation>Der Modellordner hat keine config.json: %1</translation>
    </message>
    <message>
        <source>Choose the new-domain data (a file or a folder).</source>
        <translation>Wählen Sie die Daten der neuen Domäne (eine Datei oder einen Ordner).</translation>
    </message>
    <message>
        <source>The new-domain data does not exist: %1</source>
        <translation>Die Daten der neuen Domäne existieren nicht: %1</translation>
    </message>
    <message>
        <source>Choose the original-domain data: the forgetting is measured on it.</source>
        <translation>Wählen Sie die Daten der Ursprungsdomäne: an ihnen wird das Vergessen gemessen.</translation>
    </message>
    <message>
        <source>The original-domain data does not exist: %1</source>
        <translation>Die Daten der Ursprungsdomäne existieren nicht: %1</translation>
    </message>
    <message>
        <source>The forgetting budget must be a percentage such as 5 % (found “%1”).</source>
        <translation>Das Vergessensbudget muss ein Prozentwert wie 5 % sein (gefunden: „%1“).</translation>
    </message>
    <message>
        <source>The parameter budget must be a percentage such as 10 % (found “%1”).</source>
        <translation>Das Parameterbudget muss ein Prozentwert wie 10 % sein (gefunden: „%1“).</translation>
    </message>
    <message>
        <source>The time budget must be a duration such as 30m, 90s or 1.5h (found “%1”).</source>
        <translation>Das Zeitbudget muss eine Dauer wie 30m, 90s oder 1.5h sein (gefunden: „%1“).</translation>
    </message>
    <message>
        <source>The steps must be at least 1.</source>
        <translation>Die Schritte müssen mindestens 1 sein.</translation>
    </message>
    <message>
        <source>Open a workspace first: the search&apos;s runs go to its store.</source>
        <translation>Öffnen Sie zuerst einen Arbeitsbereich: die Läufe der Suche kommen in seinen Speicher.</translation>
    </message>
    <message>
        <source>No file for the search&apos;s result.</source>
        <translation>Keine Datei für das Ergebnis der Suche.</translation>
    </message>
    <message>
        <source>The result is not a JSON object.</source>
        <translation>Das Ergebnis ist kein JSON-Objekt.</translation>
    </message>
    <message>
        <source>The result has no recommendation.</source>
        <translation>Das Ergebnis enthält keine Empfehlung.</translation>
    </message>
    <message>
        <source>The recommendation has no plan.</source>
        <translation>Die Empfehlung enthält keinen Plan.</translation>
    </message>
    <message>
        <source>The recommendation has no learning rate.</source>
        <translation>Die Empfehlung enthält keine Lernrate.</translation>
    </message>
    <message>
        <source>Suggest a plan</source>
        <translation>Plan vorschlagen</translation>
    </message>
    <message>
        <source>A budgeted search over every variant, layer policy, size and a rate grid: short pilot runs in one run group of the store, successive halving on validation data, and one recommended plan with its learning rate (docs/suggest.md).</source>
        <translation>Eine budgetierte Suche über jede Variante, Schichtrichtlinie, Größe und ein Lernratenraster: kurze Pilotläufe in einer Lauf-Gruppe des Speichers, Successive Halving auf Validierungsdaten und ein empfohlener Plan mit seiner Lernrate (docs/suggest.md).</translation>
    </message>
    <message>
        <source>File…</source>
        <translation>Datei…</translation>
    </message>
    <message>
        <source>Choose a file (files without an extension are shown too)</source>
        <translation>Eine Datei wählen (Dateien ohne Endung werden auch gezeigt)</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>Daten</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>Ordner…</translation>
    </message>
    <message>
        <source>Choose a folder</source>
        <translation>Einen Ordner wählen</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>Ordner</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>Modell:</translation>
    </message>
    <message>
        <source>a model folder</source>
        <translation>ein Modellordner</translation>
    </message>
    <message>
        <source>The base model (the one open in the Model view)</source>
        <translation>Das Basismodell (das in der Ansicht „Modell“ geöffnete)</translation>
    </message>
    <message>
        <source>New-domain data:</source>
        <translation>Daten der neuen Domäne:</translation>
    </message>
    <message>
        <source>new-domain text (file or folder)</source>
        <translation>Text der neuen Domäne (Datei oder Ordner)</translation>
    </message>
    <message>
        <source>Split at the document level into training, validation and test parts</source>
        <translation>Nach Dokumenten in Trainings-, Validierungs- und Testteil aufgeteilt</translation>
    </message>
    <message>
        <source>Original-domain data:</source>
        <translation>Daten der Ursprungsdomäne:</translation>
    </message>
    <message>
        <source>original-domain text (file or folder)</source>
        <translation>Text der Ursprungsdomäne (Datei oder Ordner)</translation>
    </message>
    <message>
        <source>The forgetting is measured on it (validation and test parts)</source>
        <translation>An ihm wird das Vergessen gemessen (Validierungs- und Testteil)</translation>
    </message>
    <message>
        <source>text (paragraphs)</source>
        <translation>Text (Absätze)</translation>
    </message>
    <message>
        <source>fortunes</source>
        <translation>Fortunes</translation>
    </message>
    <message>
        <source>JSONL</source>
        <translation>JSONL</translation>
    </message>
    <message>
        <source>The corpus format of both data sets</source>
        <translation>Das Korpusformat beider Datensätze</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>Format:</translation>
    </message>
    <message>
        <source>The most the original-domain validation perplexity may rise, in percent (5 %: at most 5 % above the base model&apos;s)</source>
        <translation>Wie stark die Validierungs-Perplexität der Ursprungsdomäne höchstens steigen darf, in Prozent (5 %: höchstens 5 % über der des Basismodells)</translation>
    </message>
    <message>
        <source>Forgetting budget:</source>
        <translation>Vergessensbudget:</translation>
    </message>
    <message>
        <source>The most parameters a plan may add, in percent of the base model</source>
        <translation>Wie viele Parameter ein Plan höchstens hinzufügen darf, in Prozent des Basismodells</translation>
    </message>
    <message>
        <source>Parameter budget:</source>
        <translation>Parameterbudget:</translation>
    </message>
    <message>
        <source>How long the search may take: 30m, 90s, 1.5h or seconds. It affords as many candidates as it can and ends within a few seconds of the budget.</source>
        <translation>Wie lange die Suche dauern darf: 30m, 90s, 1.5h oder Sekunden. Sie nimmt so viele Kandidaten, wie das Budget erlaubt, und endet wenige Sekunden nach dessen Ablauf.</translation>
    </message>
    <message>
        <source>Time budget:</source>
        <translation>Zeitbudget:</translation>
    </message>
    <message>
        <source>The full length of a run; the halving&apos;s rungs divide it</source>
        <translation>Die volle Länge eines Laufs; die Stufen des Halbierens teilen sie</translation>
    </message>
    <message>
        <source>Steps:</source>
        <translation>Schritte:</translation>
    </message>
    <message>
        <source>as many as the time affords</source>
        <translation>so viele, wie die Zeit erlaubt</translation>
    </message>
    <message>
        <source>At most this many candidate plans</source>
        <translation>Höchstens so viele Kandidatenpläne</translation>
    </message>
    <message>
        <source>Candidates:</source>
        <translation>Kandidaten:</translation>
    </message>
    <message>
        <source>Run store:</source>
        <translation>Laufspeicher:</translation>
    </message>
    <message>
        <source>The command the search runs</source>
        <translation>Der Befehl, den die Suche ausführt</translation>
    </message>
    <message>
        <source>Command:</source>
        <translation>Befehl:</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>Fortschritt</translation>
    </message>
    <message>
        <source>Messages of growbench-cli</source>
        <translation>Meldungen von growbench-cli</translation>
    </message>
    <message>
        <source>Recommendation</source>
        <translation>Empfehlung</translation>
    </message>
    <message>
        <source>The recommended plan as JSON (docs/plans.md)</source>
        <translation>Der empfohlene Plan als JSON (docs/plans.md)</translation>
    </message>
    <message>
        <source>Start search</source>
        <translation>Suche starten</translation>
    </message>
    <message>
        <source>Run the search; started again with the same fields, a cancelled search continues</source>
        <translation>Die Suche ausführen; mit denselben Feldern erneut gestartet, setzt eine abgebrochene Suche fort</translation>
    </message>
    <message>
        <source>Cancel search</source>
        <translation>Suche abbrechen</translation>
    </message>
    <message>
        <source>Stop the search cleanly; its runs stay in the store and it continues when started again with the same fields</source>
        <translation>Die Suche sauber beenden; ihre Läufe bleiben im Speicher, und sie setzt fort, wenn sie mit denselben Feldern erneut gestartet wird</translation>
    </message>
    <message>
        <source>Hide this window; a running search goes on</source>
        <translation>Dieses Fenster ausblenden; eine laufende Suche geht weiter</translation>
    </message>
    <message>
        <source>none: open a workspace</source>
        <translation>keiner: öffnen Sie einen Arbeitsbereich</translation>
    </message>
    <message>
        <source>– (%1)</source>
        <translation>– (%1)</translation>
    </message>
    <message>
        <source>Continue search</source>
        <translation>Suche fortsetzen</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>Suche läuft…</translation>
    </message>
    <message>
        <source>Cancelling: the current run stops at its next step…</source>
        <translation>Wird abgebrochen: der aktuelle Lauf hält bei seinem nächsten Schritt…</translation>
    </message>
    <message>
        <source>Elapsed %1 of %2 · at most %3 left</source>
        <translation>%1 von %2 vergangen · höchstens %3 übrig</translation>
    </message>
    <message>
        <source>Elapsed %1 of %2 · the time is up: the search ends its current run</source>
        <translation>%1 von %2 vergangen · die Zeit ist um: die Suche beendet ihren aktuellen Lauf</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>Lauf %1</translation>
    </message>
    <message>
        <source>step %1 of %2</source>
        <translation>Schritt %1 von %2</translation>
    </message>
    <message>
        <source>%1 left</source>
        <translation>noch %1</translation>
    </message>
    <message>
        <source>Preparing: %1</source>
        <translation>Vorbereitung: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) started</source>
        <translation>
            <numerusform>%n Lauf gestartet</numerusform>
            <numerusform>%n Läufe gestartet</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n ended</source>
        <translation>
            <numerusform>%n beendet</numerusform>
            <numerusform>%n beendet</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n evaluation(s)</source>
        <translation>
            <numerusform>%n Auswertung</numerusform>
            <numerusform>%n Auswertungen</numerusform>
        </translation>
    </message>
    <message>
        <source>Took %1 (time budget %2)</source>
        <translation>Dauer %1 (Zeitbudget %2)</translation>
    </message>
    <message>
        <source>Cancelled. The runs so far stay in the store: start the search again with the same fields to continue it.</source>
        <translation>Abgebrochen. Die bisherigen Läufe bleiben im Speicher: starten Sie die Suche mit denselben Feldern erneut, um sie fortzusetzen.</translation>
    </message>
    <message>
        <source>growbench-cli crashed: %1</source>
        <translation>growbench-cli ist abgestürzt: %1</translation>
    </message>
    <message>
        <source>The search failed (exit code %1): %2</source>
        <translation>Die Suche ist fehlgeschlagen (Exit-Code %1): %2</translation>
    </message>
    <message>
        <source>The search ended but its result %1 could not be read: %2</source>
        <translation>Die Suche ist beendet, aber ihr Ergebnis %1 konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>The search&apos;s result %1 could not be read: %2</source>
        <translation>Das Ergebnis der Suche %1 konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>&lt;b&gt;Recommended: %1&lt;/b&gt; (variant %2), learning rate %3, at step %4 of %5.</source>
        <translation>&lt;b&gt;Empfohlen: %1&lt;/b&gt; (Variante %2), Lernrate %3, bei Schritt %4 von %5.</translation>
    </message>
    <message>
        <source>Validation: new-domain loss %1, original-domain perplexity %2.</source>
        <translation>Validierung: Verlust der neuen Domäne %1, Perplexität der Ursprungsdomäne %2.</translation>
    </message>
    <message>
        <source>Test: new-domain loss %1, original-domain perplexity %2.</source>
        <translation>Test: Verlust der neuen Domäne %1, Perplexität der Ursprungsdomäne %2.</translation>
    </message>
    <message>
        <source>Within the forgetting budget of %1 % on the validation data.</source>
        <translation>Innerhalb des Vergessensbudgets von %1 % auf den Validierungsdaten.</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#c62828&apos;&gt;No candidate stays within the forgetting budget of %1 %: this is the one that forgets least.&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#c62828&apos;&gt;Kein Kandidat bleibt innerhalb des Vergessensbudgets von %1 %: dies ist der, der am wenigsten vergisst.&lt;/span&gt;</translation>
    </message>
    <message>
        <source>The time ran out before the full length: chosen at step %1 of %2.</source>
        <translation>Die Zeit lief vor der vollen Länge ab: gewählt bei Schritt %1 von %2.</translation>
    </message>
    <message numerus="yes">
        <source>%n candidate(s) in group %1, %2 spent.</source>
        <translation>
            <numerusform>%n Kandidat in Gruppe %1, %2 verbraucht.</numerusform>
            <numerusform>%n Kandidaten in Gruppe %1, %2 verbraucht.</numerusform>
        </translation>
    </message>
    <message>
        <source>The search is done.</source>
        <translation>Die Suche ist fertig.</translation>
    </message>
</context>
<context>
    <name>gb::gui::SweepEditor</name>
    <message>
        <source>Seeds:</source>
        <translation>Seeds:</translation>
    </message>
    <message>
        <source>e.g. 0, 1, 2 (empty: one run with the seed above)</source>
        <translation>z. B. 0, 1, 2 (leer: ein Lauf mit dem Seed oben)</translation>
    </message>
    <message>
        <source>One run per seed: the seed sets the data order and the initial values of new parameters; the base model and the data splits stay the same</source>
        <translation>Ein Lauf je Seed: der Seed bestimmt die Datenreihenfolge und die Anfangswerte neuer Parameter; Basismodell und Datenaufteilung bleiben gleich</translation>
    </message>
    <message>
        <source>Sweep:</source>
        <translation>Sweep:</translation>
    </message>
    <message>
        <source>grid</source>
        <translation>Gitter</translation>
    </message>
    <message>
        <source>random</source>
        <translation>zufällig</translation>
    </message>
    <message>
        <source>Grid: every combination of the values. Random: N samples, each value drawn from its list or range</source>
        <translation>Gitter: jede Kombination der Werte. Zufällig: N Stichproben, jeder Wert aus seiner Liste oder seinem Bereich gezogen</translation>
    </message>
    <message>
        <source>samples: </source>
        <translation>Stichproben: </translation>
    </message>
    <message>
        <source>Add key</source>
        <translation>Schlüssel hinzufügen</translation>
    </message>
    <message>
        <source>Sweep one more hyper-parameter</source>
        <translation>Einen weiteren Hyperparameter variieren</translation>
    </message>
    <message>
        <source>Remove key</source>
        <translation>Schlüssel entfernen</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>Schlüssel</translation>
    </message>
    <message>
        <source>Values</source>
        <translation>Werte</translation>
    </message>
    <message>
        <source>training setting %1</source>
        <translation>Trainingseinstellung %1</translation>
    </message>
    <message>
        <source>share of original-domain replay in each batch (plan key)</source>
        <translation>Anteil der Wiederholung der Ursprungsdomäne in jedem Batch (Plan-Schlüssel)</translation>
    </message>
    <message>
        <source>EWC setting %1 (plan key)</source>
        <translation>EWC-Einstellung %1 (Plan-Schlüssel)</translation>
    </message>
    <message>
        <source>%1 parameter %2</source>
        <translation>%1-Parameter %2</translation>
    </message>
    <message>
        <source>a plan parameter by its schema name</source>
        <translation>ein Plan-Parameter unter seinem Schema-Namen</translation>
    </message>
    <message>
        <source>values, e.g. 1e-4, 3e-4, 1e-3 (random: log_uniform(1e-5, 1e-3))</source>
        <translation>Werte, z. B. 1e-4, 3e-4, 1e-3 (zufällig: log_uniform(1e-5, 1e-3))</translation>
    </message>
    <message>
        <source>%1: ranges need the random sweep mode</source>
        <translation>%1: Bereiche brauchen den zufälligen Sweep-Modus</translation>
    </message>
    <message>
        <source>%1: expected %2(low, high) with numbers, low ≤ high</source>
        <translation>%1: erwartet %2(low, high) mit Zahlen, low ≤ high</translation>
    </message>
    <message>
        <source>%1: a log-uniform range needs low &gt; 0</source>
        <translation>%1: ein log-uniformer Bereich braucht low &gt; 0</translation>
    </message>
    <message>
        <source>%1: give at least one value</source>
        <translation>%1: mindestens einen Wert angeben</translation>
    </message>
    <message>
        <source>%1: “%2” is not a number</source>
        <translation>%1: „%2“ ist keine Zahl</translation>
    </message>
    <message>
        <source>%1: “%2” is not a whole number</source>
        <translation>%1: „%2“ ist keine ganze Zahl</translation>
    </message>
    <message>
        <source>%1: %2 is outside %3</source>
        <translation>%1: %2 liegt außerhalb von %3</translation>
    </message>
    <message>
        <source>%1: expected true or false, found “%2”</source>
        <translation>%1: erwartet true oder false, gefunden „%2“</translation>
    </message>
    <message>
        <source>%1: “%2” is not one of %3</source>
        <translation>%1: „%2“ ist keiner von %3</translation>
    </message>
    <message>
        <source>%1: %2 appears twice</source>
        <translation>%1: %2 kommt zweimal vor</translation>
    </message>
    <message>
        <source>Seeds: “%1” is not a non-negative whole number</source>
        <translation>Seeds: „%1“ ist keine nichtnegative ganze Zahl</translation>
    </message>
    <message>
        <source>Seeds: %1 appears twice</source>
        <translation>Seeds: %1 kommt zweimal vor</translation>
    </message>
    <message>
        <source>Sweep row %1: choose a key</source>
        <translation>Sweep-Zeile %1: einen Schlüssel wählen</translation>
    </message>
    <message>
        <source>Sweep: %1 appears twice</source>
        <translation>Sweep: %1 kommt zweimal vor</translation>
    </message>
    <message>
        <source>Sweep: %1</source>
        <translation>Sweep: %1</translation>
    </message>
    <message>
        <source>→ ? runs</source>
        <translation>→ ? Läufe</translation>
    </message>
    <message numerus="yes">
        <source>→ %n run(s)</source>
        <translation>
            <numerusform>→ %n Lauf</numerusform>
            <numerusform>→ %n Läufe</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>gb::gui::WorkspaceView</name>
    <message>
        <source>&lt;b&gt;Workspace&lt;/b&gt;</source>
        <translation>&lt;b&gt;Arbeitsbereich&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Open…</source>
        <translation>Öffnen…</translation>
    </message>
    <message>
        <source>Open a folder holding growbench.db</source>
        <translation>Einen Ordner mit growbench.db öffnen</translation>
    </message>
    <message>
        <source>New…</source>
        <translation>Neu…</translation>
    </message>
    <message>
        <source>Create an empty workspace in a new folder</source>
        <translation>Einen leeren Arbeitsbereich in einem neuen Ordner anlegen</translation>
    </message>
    <message>
        <source>Default</source>
        <translation>Standard</translation>
    </message>
    <message>
        <source>The default workspace: %1 (where growbench-cli writes without --db)</source>
        <translation>Der Standard-Arbeitsbereich: %1 (hierhin schreibt growbench-cli ohne --db)</translation>
    </message>
    <message>
        <source>Run the quickstart here</source>
        <translation>Schnellstart hier ausführen</translation>
    </message>
    <message>
        <source>Adapt the built-in tiny English model to German with six methods (a few minutes on a CPU)</source>
        <translation>Das eingebaute winzige englische Modell mit sechs Methoden an Deutsch anpassen (einige Minuten auf einer CPU)</translation>
    </message>
    <message>
        <source>Recent workspaces:</source>
        <translation>Zuletzt verwendete Arbeitsbereiche:</translation>
    </message>
    <message>
        <source>The quickstart spec was not found.</source>
        <translation>Die Schnellstart-Spezifikation wurde nicht gefunden.</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#c62828&apos;&gt;Could not open %1: %2&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#c62828&apos;&gt;%1 konnte nicht geöffnet werden: %2&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Open workspace</source>
        <translation>Arbeitsbereich öffnen</translation>
    </message>
    <message>
        <source>%1 holds no growbench.db. Create a new workspace there?</source>
        <translation>%1 enthält keine growbench.db. Dort einen neuen Arbeitsbereich anlegen?</translation>
    </message>
    <message>
        <source>New workspace: choose an empty folder</source>
        <translation>Neuer Arbeitsbereich: wählen Sie einen leeren Ordner</translation>
    </message>
    <message>
        <source>No workspace open.</source>
        <translation>Kein Arbeitsbereich geöffnet.</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n Lauf</numerusform>
            <numerusform>%n Läufe</numerusform>
        </translation>
    </message>
    <message>
        <source>Store: %1 (%2)</source>
        <translation>Datenbank: %1 (%2)</translation>
    </message>
    <message>
        <source>Empty. Run the quickstart below, launch a run from the Runs view, or point growbench-cli at this store with --db.</source>
        <translation>Leer. Führen Sie unten den Schnellstart aus, starten Sie einen Lauf in der Ansicht „Läufe“ oder richten Sie growbench-cli mit --db auf diese Datenbank.</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>GrowBench: grow language models without forgetting</source>
        <translation>GrowBench: Sprachmodelle erweitern, ohne zu vergessen</translation>
    </message>
    <message>
        <source>Open this workspace.</source>
        <translation>Diesen Arbeitsbereich öffnen.</translation>
    </message>
    <message>
        <source>Open this model folder.</source>
        <translation>Diesen Modellordner öffnen.</translation>
    </message>
    <message>
        <source>Messages on standard error from LEVEL up: trace, debug, info, warn, error or off (default: the environment variable GROWBENCH_LOG, else info). Workers started from the window inherit it.</source>
        <translation>Meldungen auf der Standardfehlerausgabe ab LEVEL: trace, debug, info, warn, error oder off (Vorgabe: die Umgebungsvariable GROWBENCH_LOG, sonst info). Aus dem Fenster gestartete Worker übernehmen sie.</translation>
    </message>
    <message>
        <source>Save a screenshot of every view to OUTDIR, then exit.</source>
        <translation>Von jeder Ansicht ein Bildschirmfoto in OUTDIR speichern, dann beenden.</translation>
    </message>
    <message>
        <source>Print performance figures, then exit.</source>
        <translation>Leistungskennzahlen ausgeben, dann beenden.</translation>
    </message>
    <message>
        <source>With --measure: time opening this store.</source>
        <translation>Mit --measure: die Zeit zum Öffnen dieser Datenbank messen.</translation>
    </message>
    <message>
        <source>With --measure: run this spec and measure event-loop gaps meanwhile.</source>
        <translation>Mit --measure: diese Spezifikation ausführen und dabei Lücken der Ereignisschleife messen.</translation>
    </message>
    <message>
        <source>Model folders, experiment specs (.json) or run stores to open (the desktop passes dropped or chosen files this way).</source>
        <translation>Zu öffnende Modellordner, Experimentspezifikationen (.json) oder Laufspeicher (so übergibt der Desktop abgelegte oder gewählte Dateien).</translation>
    </message>
</context>
</TS>
