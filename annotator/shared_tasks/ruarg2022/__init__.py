"""RuArg-2022, stance and premise per claim: the TSV files, the project exchange, the macro-F1 scorer, the premise
stage (a command and an admin page), and the consistency checks as a named rule (consistency_rule.py)."""
from annotator.plugins.shared_task import SharedTask

SHARED_TASK = SharedTask(
    name="ruarg2022", title="RuArg-2022: stance and premise",
    formats=("exchange:FORMAT",), scorer="scorer:SCORER",
    rules=("consistency_rule:RUARG_CONSISTENCY",),
    commands=("stage_command:premise_stage_command",), blueprints=("stage_page:bp",),
    definitions=("stance_premise.yaml", "stance.yaml", "premise.yaml"),
    bridges=("bridge:STANCE_PREMISE", "bridge:STANCE_STAGE", "bridge:PREMISE_STAGE"),
)
