# Memory savers of the trainer (issue 38): the chunked cross-entropy (train/chunked_ce.h)
# against the plain one, activation checkpointing per decoder layer against the plain
# forward pass, for full fine-tuning and LoRA on the tiny preset, the default path bit for
# bit, and the spec keys train.ce_chunk and train.checkpointing.
gb_add_test(tst_memory TORCH TIMEOUT 300)
