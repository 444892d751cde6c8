# Hostile inputs (tests/hostile/, issue 20): one row per case that used to lose data or
# print a wrong number silently, each driving the real growbench-cli (QProcess) on a
# hand-made malformed input and checking the exit status and the words of the error.
gb_add_test(tst_hostile TORCH CLI MAIN hostile/tst_hostile.cpp TIMEOUT 600)
