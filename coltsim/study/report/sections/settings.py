"""The settings section: what was played, how many games, and what the run recorded."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ....analysis.frames import column_codes, compact_policies, rule_columns, setting_labels
from ....rules import Rules
from ..context import Context
from ..document import Section


def build(ctx: Context, experiment) -> Section:
    f = ctx.f
    s = f.settings.copy()
    labels = setting_labels(s)
    codes, names = column_codes(f.games["setting"])
    counts = pd.Series(np.bincount(codes[codes >= 0], minlength=len(names)), index=names)
    defaults = Rules().as_dict()

    def changed(row):
        out = []
        for c in rule_columns(s):
            d = defaults.get(c)
            d = ",".join(d) if isinstance(d, list) else d
            if c in defaults and str(row[c]) != str(d):
                out.append(f"{c}={row[c]}")
        return ", ".join(out) or "defaults"

    display = pd.DataFrame({
        "setting": s["setting"].astype(str),
        "label": s["setting"].astype(str).map(labels),
        "players": s["players"],
        "line-up": s.get("lineup", ""),
        "policies": s["policies"].map(compact_policies) if "policies" in s else "",
        "rules": s.apply(changed, axis=1) if len(s) else [],
        "games": s["setting"].astype(str).map(counts).fillna(0).astype(int).map("{:,}".format),
    })
    table = ctx.w.table("settings", "Settings", s, display)
    blocks = [f"{ctx.games:,} games in {len(s)} setting{'s' if len(s) != 1 else ''}."]
    m = f.manifest or {}
    facts = [f"{k} `{m[k]}`" for k in ("seed", "coltsim_version", "rules_version", "version")
             if k in m and not isinstance(m[k], (dict, list))]
    if experiment is not None:
        facts = [f"seed `{experiment.seed}`"] + [x for x in facts if not x.startswith("seed")]
    if facts:
        blocks.append("Recorded: " + ", ".join(facts) + ".")
    blocks.append(table)
    return Section("Settings", blocks)
