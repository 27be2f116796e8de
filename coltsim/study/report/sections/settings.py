"""The settings section: what was played, how many games, and what the run recorded."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ....analysis.design import rule_phrase
from ....analysis.frames import column_codes, rule_columns
from ..context import Context
from ..document import Section

TITLE = "Settings"


def files_text(files: str | None) -> str:
    """The files a setting played (the settings table's JSON), each by what names it, its path
    and the start of its SHA-256: ``learned.weights W/weights.npz `1a2b3c4d5e6f```."""
    records = json.loads(files) if files else {}
    return ", ".join(f"{key} {r['path']} `{r['sha256'][:12]}`" for key, r in records.items()) \
        or "none"


def build(ctx: Context, experiment) -> Section:
    f, d = ctx.f, ctx.design.settings
    codes, names = column_codes(f.games["setting"])
    counts = pd.Series(np.bincount(codes[codes >= 0], minlength=len(names)), index=names)
    rules = rule_columns(f.settings)

    def changed(row):
        return ", ".join(p for p in (rule_phrase(c, row[c]) for c in rules) if p) \
            or "printed rules"

    display = pd.DataFrame({
        "setting": d["setting"], "label": d["label"], "players": d["players"],
        "line-up": d["lineup"], "policies": d["policy"],
        "rules": d.apply(changed, axis=1) if len(d) else [],
        "games": d["setting"].map(counts).fillna(0).astype(int).map("{:,}".format),
    })
    if d["mixed"].any():
        display.insert(5, "seats", d["policies"].str.replace(",", ", "))
    if "files" in f.settings:  # which network (or module) each seat's policy played
        files = dict(zip(f.settings["setting"].astype(str), f.settings["files"]))
        display.insert(len(display.columns) - 2, "files played (SHA-256)",
                       d["setting"].map(lambda sid: files_text(files.get(sid))))
    table = ctx.w.table("settings", "Settings", f.settings, display)
    blocks = [f"{ctx.games:,} games in {len(d)} setting{'s' if len(d) != 1 else ''}."]
    if d["mixed"].any():
        blocks.append("A table of different policies is played in every rotation of its seats "
                      "(one setting each, on the same deals).")
    if ctx.design.ladder:
        blocks.append("Policies, from the weakest to the strongest (the experiment's ladder): "
                      + ", ".join(f"`{p}`" for p in ctx.design.ladder) + ".")
    m = f.manifest or {}
    facts = [f"{k} `{m[k]}`" for k in ("seed", "coltsim_version", "rules_version", "version")
             if k in m and not isinstance(m[k], (dict, list))]
    if experiment is not None:
        facts = [f"seed `{experiment.seed}`"] + [x for x in facts if not x.startswith("seed")]
    if facts:
        blocks.append("Recorded: " + ", ".join(facts) + ".")
    blocks.append(table)
    return Section(TITLE, blocks)
