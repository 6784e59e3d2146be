"""SemEval-2021 Task 4 (ReCAM), cloze validation: the JSON Lines files, the project exchange and the
accuracy scorer."""
