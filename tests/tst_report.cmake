# Reproductions: cloze tasks, claims and verdicts on a hand-made store, the report command's
# HTML and JSON, smoke specs, and the shipped paper specs (resources/experiments/papers/).
gb_add_test(tst_report TORCH CLI TIMEOUT 1200)
