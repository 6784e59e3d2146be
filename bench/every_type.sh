#!/bin/sh
# Issue 12 part 1: bench/load.py on every HIT type's hot path, on both engines, each with the ceiling of
# its own invocation; then the default campaign with control items and blocking on. Writes one JSON per
# run into bench/results/NAME-type-*.json (NAME = the first argument, else today's date, UTC; give a name
# when today's files are quoted elsewhere). Run from the repository root, on an idle machine:
#     sh bench/every_type.sh [NAME]
# Smaller inputs are grown to --grow-items 400 items by copying (bench/synthetic.py); k=4, 8 annotators.
set -e
NAME=${1:-$(date -u +%Y-%m-%d)}
OUT=bench/results
SHARED=../shared/data
PY=.venv/bin/python
COMMON="--engine all --k 4 --annotators 8 --wait-quiet 30 --timeout 900"
run() { name=$1; shift; echo "== $name"; $PY bench/load.py $COMMON --json "$OUT/$NAME-type-$name.json" "$@" | tail -6; }
run kp_match --items 400
run emphasis --format emphasis2020 --data $SHARED/emphasis2020/train_dev_data/dev.txt --items 400
run stance_premise --format ruarg2022 --data $SHARED/ruarg2022/data/val_empty.tsv --items 400
run cloze --format recam2021 --data $SHARED/recam2021/data/training_data/Task_1_dev.jsonl --items 400
run kp_match_check --format kpa2021-check --data tests/data/kpa2021_track2 --option split=test --grow-items 400
run kp_set_compare --format kpa2021-compare --data tests/data/kpa2021_track2 --option split=test --grow-items 400
echo "== controls and blocking (kp_match, 10 % control items, blocking judged after 2 control answers)"
$PY bench/load.py $COMMON --items 400 --controls 40 --quality control_rate=0.1 --quality block_min_controls=2 \
    --quality block_accuracy=0 --json "$OUT/$NAME-type-kp_match-controls.json" | tail -6
