# Data-parallel runs on LibTorch's c10d (core/dist) through the real growbench-cli: the world
# from torchrun's and srun's variables, two processes equal to one (metrics and weights), a
# killed or hung rank, resume with another world size, torchrun and environment launches, and
# the rendezvous errors. Skips the process tests when the build has no Gloo.
gb_add_test(tst_dist TORCH CLI TIMEOUT 900)
