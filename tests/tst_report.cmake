# Reproductions: cloze tasks, claims and verdicts on a hand-made store, the report command's
# HTML and JSON, smoke specs, and the shipped paper specs (resources/experiments/papers/).
gb_add_test(tst_report TORCH CLI TIMEOUT 1200)
# Each paper's smoke run is one test function row: allow more than Qt Test's 5 minutes on a
# loaded machine.
set_property(TEST tst_report APPEND PROPERTY ENVIRONMENT "QTEST_FUNCTION_TIMEOUT=1800000")
