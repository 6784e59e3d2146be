"""The KPA-2021 overview's result tables that decide who takes part in Track 2, as test data.

Table 2 (Matching Track results): per model its strict mAP, relaxed mAP and strict p@50%, in the table's order
(its Rank column: SMatchToPR 1 ... XLNet 10, RoBERTa-LC 11, pa_vincent 12, ...). Table 3 (Generation Track): the
mAP of each generation model.
"""
from __future__ import annotations

from annotator.core.extensions import db
from annotator.core.models import GoldSet, Submission

TABLE_2 = [  # model, strict mAP, relaxed mAP, strict p@50%
    ("SMatchToPR", 0.789, 0.927, 0.848), ("NLP@UIT", 0.746, 0.93, 0.827), ("ModrnTalk", 0.754, 0.902, 0.806),
    ("Enigma", 0.739, 0.928, 0.828), ("MatchTStm", 0.745, 0.902, 0.808), ("mozhiwen", 0.681, 0.948, 0.784),
    ("fengdoudou", 0.676, 0.944, 0.753), ("poledro", 0.717, 0.901, 0.799), ("Fibelkorn", 0.706, 0.872, 0.779),
    ("XLNet", 0.684, 0.869, 0.765), ("RoBERTa-LC", 0.661, 0.885, 0.774), ("pa_vincent", 0.596, 0.893, 0.689),
    ("BarH", 0.674, 0.865, 0.78), ("np-quadrat", 0.601, 0.877, 0.729), ("niksss", 0.672, 0.857, 0.759),
    ("SiamBERT", 0.555, 0.729, 0.678), ("yamenajjour", 0.539, 0.682, 0.667), ("danielwaechtleruni", 0.39, 0.601, 0.511),
]
TABLE_2_TOP_10 = ["SMatchToPR", "NLP@UIT", "ModrnTalk", "Enigma", "MatchTStm", "mozhiwen", "fengdoudou", "poledro",
                  "Fibelkorn", "XLNet"]  # Rank 1 to 10 (MatchTStm and mozhiwen share rank 5)
TABLE_3_MAP = {"BarH": 0.885, "SMatchToPR": 0.818, "Enigma": 0.491, "XLNet": 0.443, "pa_vincent": 0.096,
               "mozhiwen": 0.0}


def track_1_leaderboard() -> GoldSet:
    """A Track-1 leaderboard holding Table 2's submissions (their figures; the files are not needed to rank)."""
    gold_set = GoldSet(name="KPA-2021 test (Table 2)", task="kpa2021", filename="test-gold.zip", content=b"",
                       options={"split": "test"})
    db.session.add(gold_set)
    for team, strict, relaxed, p50 in TABLE_2:
        db.session.add(Submission(gold_set=gold_set, team=team, system=f"{team} final", filename="predictions.p",
                                  content=b"{}", report={},
                                  metrics={"strict": strict, "relaxed": relaxed, "p_at_50_strict": p50}))
    db.session.commit()
    return gold_set
