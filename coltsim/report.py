"""Reports: markdown and HTML built from one structure, with figures (PNG) and tables (CSV).

:func:`build_report` reads saved results (it never simulates), runs the analyses an experiment
asks for and writes, into ``out_dir``::

    report.md, report.html        the same content, readable on GitHub or in a browser
    figures/*.png                 one file per figure (composed from coltsim.plots helpers)
    tables/*.csv                  every table in full, unformatted
    experiment.toml               the experiment file as it was run (if known)
    manifest.json                 the runner's manifest (if known)

:func:`render_from_folder` re-renders ``reports/NAME`` from its saved data.
"""
from __future__ import annotations

import html as _html
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as _MplFigure

from . import plots
from .analysis import balance, compare as compare_mod, gunslinger as gun, round_cards as rc, \
    seats as seats_mod
from .analysis.frames import Frames, as_frames, column_codes, compact_policies, read_frames, \
    rule_columns, seat_policies, setting_labels, setting_order
from .analysis.metrics import GAME_METRICS
from .analysis.stats import CORRECTIONS, LEVEL
from .experiment import ANALYSES, Experiment, load_experiment
from .rules import Rules

DPI = 150


# --- the structure ---------------------------------------------------------------------------
@dataclass
class Table:
    """A table: ``data`` goes to ``tables/<name>.csv`` in full; ``display`` (formatted text,
    possibly fewer rows) goes into the report."""

    name: str
    caption: str
    data: pd.DataFrame
    display: pd.DataFrame
    note: str = ""


@dataclass
class Figure:
    """A figure saved as ``figures/<name>.png``."""

    name: str
    caption: str


@dataclass
class Section:
    title: str
    blocks: list = field(default_factory=list)  # str paragraphs, Table, Figure


@dataclass
class Report:
    title: str
    description: str
    headline: list  # the sentences a designer can quote, most important first
    sections: list
    out_dir: Path

    def markdown(self) -> str:
        out = [f"# {self.title}", ""]
        if self.description:
            out += [self.description, ""]
        if self.headline:
            out += ["## Headline", ""]
            out += [f"> {line}\n>" for line in self.headline]
            out[-1] = out[-1].rstrip(">").rstrip()
            out.append("")
        for s in self.sections:
            out += [f"## {s.title}", ""]
            for b in s.blocks:
                if isinstance(b, str):
                    out += [b, ""]
                elif isinstance(b, Figure):
                    out += [f"![{b.caption}](figures/{b.name}.png)", "", f"*{b.caption}*", ""]
                elif isinstance(b, Table):
                    out += [f"**{b.caption}**", "", _markdown_table(b.display), ""]
                    note = f"{b.note} " if b.note else ""
                    out += [f"{note}Full table: [tables/{b.name}.csv](tables/{b.name}.csv)", ""]
        return "\n".join(out).rstrip() + "\n"

    def html(self) -> str:
        e = _html.escape
        body = [f"<h1>{e(self.title)}</h1>"]
        if self.description:
            body.append(f"<p>{e(self.description)}</p>")
        if self.headline:
            body.append('<h2>Headline</h2><div class="headline">'
                        + "".join(f"<p>{e(line)}</p>" for line in self.headline) + "</div>")
        for s in self.sections:
            body.append(f"<h2>{e(s.title)}</h2>")
            for b in s.blocks:
                if isinstance(b, str):
                    body.append(f"<p>{_inline_html(b)}</p>")
                elif isinstance(b, Figure):
                    body.append(f'<figure><img src="figures/{e(b.name)}.png" alt="{e(b.caption)}">'
                                f"<figcaption>{e(b.caption)}</figcaption></figure>")
                elif isinstance(b, Table):
                    note = f"{e(b.note)} " if b.note else ""
                    body.append(f"<p class=\"caption\"><b>{e(b.caption)}</b></p>"
                                + _html_table(b.display)
                                + f'<p class="note">{note}Full table: <a href="tables/{e(b.name)}'
                                  f'.csv">tables/{e(b.name)}.csv</a></p>')
        return (_HTML_HEAD.replace("{title}", e(self.title)) + "\n".join(body)
                + "\n</body>\n</html>\n")


_HTML_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 1000px; margin: 2em auto; padding: 0 1em;
       line-height: 1.45; color: #222; }
h1 { border-bottom: 2px solid #444; }
h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
.headline { background: #f3f6fa; border-left: 4px solid #3f88c5; padding: 0.3em 1em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
th { background: #f0f0f0; }
td:first-child, th:first-child { text-align: left; }
figure { margin: 1em 0; }
figure img { max-width: 100%; }
figcaption, .note { font-size: 0.85em; color: #555; }
code { background: #f4f4f4; padding: 0 0.2em; }
</style>
</head>
<body>
"""


def _inline_html(text: str) -> str:
    """Escape, then render the only inline markdown the report writes: `code`."""
    parts = _html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def _markdown_table(df: pd.DataFrame) -> str:
    if df.empty:
        return "*(no rows)*"
    cells = [[str(c) for c in df.columns]] + [[str(v) for v in row] for row in df.itertuples(
        index=False)]
    cells = [[c.replace("|", "\\|") for c in row] for row in cells]
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "|".join(["---"] * len(df.columns)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in cells[1:]]
    return "\n".join(lines)


def _html_table(df: pd.DataFrame) -> str:
    e = _html.escape
    if df.empty:
        return "<p><i>(no rows)</i></p>"
    head = "".join(f"<th>{e(str(c))}</th>" for c in df.columns)
    rows = "".join("<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in r) + "</tr>"
                   for r in df.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


# --- formatting ------------------------------------------------------------------------------
def _pct(x) -> str:
    return "" if _nan(x) else f"{100 * x:.1f}%"


def _pct_ci(x, lo, hi) -> str:
    return "" if _nan(x) else f"{100 * x:.1f}% ({100 * lo:.1f} to {100 * hi:.1f})"


def _pp(x) -> str:
    return "" if _nan(x) else f"{100 * x:+.1f}"


def _pp_ci(x, lo, hi) -> str:
    return "" if _nan(x) else f"{100 * x:+.1f} ({100 * lo:+.1f} to {100 * hi:+.1f})"


def _usd(x) -> str:
    return "" if _nan(x) else f"${x:,.0f}"


def _usd_ci(x, lo, hi, signed=False) -> str:
    if _nan(x):
        return ""
    f = (lambda v: f"{'+' if v >= 0 else '-'}${abs(v):,.0f}") if signed else \
        (lambda v: f"${v:,.0f}")
    return f"{f(x)} ({f(lo)} to {f(hi)})"


def _num_ci(x, lo, hi, digits=2, signed=True) -> str:
    if _nan(x):
        return ""
    s = "+" if signed else ""
    return f"{x:{s}.{digits}f} ({lo:{s}.{digits}f} to {hi:{s}.{digits}f})"


def _p(x) -> str:
    if _nan(x):
        return ""
    return "<0.001" if x < 0.001 else f"{x:.3f}"


def _yes(x) -> str:
    return "yes" if bool(x) else ""


def _nan(x) -> bool:
    try:
        return x is None or math.isnan(float(x))
    except (TypeError, ValueError):
        return False


def _metric_ci(metric: str, x, lo, hi) -> str:
    kind = GAME_METRICS[metric][1]
    if kind == "rate":
        return _pp_ci(x, lo, hi) + " pp"
    if "$" in GAME_METRICS[metric][0]:
        return _usd_ci(x, lo, hi, signed=True)
    return _num_ci(x, lo, hi)


def _metric_value(metric: str, x) -> str:
    if GAME_METRICS[metric][1] == "rate":
        return _pct(x)
    if "$" in GAME_METRICS[metric][0]:
        return _usd(x)
    return "" if _nan(x) else f"{x:.2f}"


# --- building --------------------------------------------------------------------------------
class _Writer:
    """Collects figures and tables into the output folder."""

    def __init__(self, out_dir: Path):
        self.out_dir = out_dir
        (out_dir / "figures").mkdir(parents=True, exist_ok=True)
        (out_dir / "tables").mkdir(parents=True, exist_ok=True)
        self.files = []

    def figure(self, name: str, caption: str, draw, size=(8, 4.5), grid=(1, 1)) -> Figure:
        fig = _MplFigure(figsize=size, layout="constrained")
        axes = fig.subplots(*grid, squeeze=False).ravel()
        draw(fig, axes)
        path = self.out_dir / "figures" / f"{name}.png"
        fig.savefig(path, dpi=DPI)
        self.files.append(path)
        return Figure(name, caption)

    def table(self, name: str, caption: str, data: pd.DataFrame, display: pd.DataFrame,
              note: str = "") -> Table:
        path = self.out_dir / "tables" / f"{name}.csv"
        data.to_csv(path, index=False)
        self.files.append(path)
        return Table(name, caption, data, display, note)


def build_report(results, experiment: Experiment | None = None, out_dir=None,
                 analyses=None, correction: str | None = None,
                 level: float = LEVEL) -> Report:
    """Analyse saved results and write the report folder.

    Parameters
    ----------
    results
        What ``coltsim.load_results`` returns, a :class:`~coltsim.analysis.frames.Frames`, or
        any object or mapping with the ``players``, ``games`` and ``settings`` DataFrames (and
        optionally ``manifest``).
    experiment : Experiment, optional
        Gives the title, description, analyses, correction and default output folder.
    out_dir : path, optional
        Where to write (default ``experiment.output``).
    analyses : sequence of str, optional
        Overrides the experiment's analyses (default: all of
        :data:`coltsim.experiment.ANALYSES` that apply).
    correction : {"holm", "bh"}, optional
        Overrides the experiment's multiple-comparison correction (default Holm).

    Returns
    -------
    Report
        The structure that was rendered (``report.markdown()``, ``report.html()``).
    """
    f = as_frames(results)
    if out_dir is None:
        if experiment is None:
            raise ValueError("build_report needs out_dir when no experiment is given")
        out_dir = experiment.output
    out_dir = Path(out_dir)
    analyses = tuple(analyses or (experiment.analyses if experiment else ANALYSES))
    for a in analyses:
        if a not in ANALYSES:
            raise ValueError(f"unknown analysis {a!r}; allowed: {', '.join(ANALYSES)}")
    correction = correction or (experiment.correction if experiment else "holm")
    if correction not in CORRECTIONS or correction == "none":
        raise ValueError(f"unknown correction {correction!r}; allowed: holm, bh")
    if len(f.players) == 0:
        raise ValueError("the results hold no games")

    w = _Writer(out_dir)
    ctx = _Context(f, w, correction, level)
    title = experiment.name if experiment else (f.manifest or {}).get("name", out_dir.name)
    description = experiment.description if experiment else ""
    sections = [_settings_section(ctx, experiment)]
    headline = []
    builders = {"balance": _balance_section, "seats": _seats_section,
                "gunslinger": _gunslinger_section, "round_cards": _round_cards_section,
                "compare": _compare_section}
    for a in ANALYSES:  # a fixed, readable order whatever the file lists
        if a in analyses:
            section, lines = builders[a](ctx)
            sections.append(section)
            headline += lines
    sections.append(_methods_section(ctx, experiment))

    report = Report(f"coltsim report: {title}", description, headline, sections, out_dir)
    (out_dir / "report.md").write_text(report.markdown(), encoding="utf-8")
    (out_dir / "report.html").write_text(report.html(), encoding="utf-8")
    if experiment is not None and experiment.text:
        (out_dir / "experiment.toml").write_text(experiment.text, encoding="utf-8")
    holds_data = (out_dir / "players").is_dir() or (out_dir / "players.parquet").exists()
    if f.manifest and not holds_data:  # never touch the manifest of a results folder
        (out_dir / "manifest.json").write_text(json.dumps(f.manifest, indent=2, default=str)
                                               + "\n", encoding="utf-8")
    return report


@dataclass
class _Context:
    f: Frames
    w: _Writer
    correction: str
    level: float

    @property
    def corr_name(self) -> str:
        return {"holm": "Holm", "bh": "Benjamini-Hochberg"}[self.correction]

    @property
    def games(self) -> int:
        return int(len(self.f.games))

    def context_phrase(self) -> str:
        n = sorted(self.f.settings["players"].astype(int).unique()) if len(self.f.settings) \
            else sorted(self.f.games["players"].astype(int).unique())
        if len(n) == 1:
            players = f"{n[0]} players"
        elif n == list(range(n[0], n[-1] + 1)):
            players = f"{n[0]} to {n[-1]} players"
        else:
            players = ", ".join(map(str, n)) + " players"
        pol = sorted({compact_policies(x) for x in self.f.settings["policies"]}) \
            if "policies" in self.f.settings else []
        return players + (f", {' / '.join(pol)} policy" if len(pol) == 1 else "")


def _settings_section(ctx: _Context, experiment) -> Section:
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


def _balance_section(ctx: _Context):
    f, w, corr, lvl = ctx.f, ctx.w, ctx.correction, ctx.level
    rates = balance.win_rates(f, lvl, corr)
    effects = balance.bandit_effects(f, "win", lvl, corr)
    score_effects = balance.bandit_effects(f, "score", lvl, corr)
    scores = balance.mean_scores(f, lvl)
    spread = balance.spread(effects, lvl, ctx.corr_name)
    headline = [spread.sentence(ctx.games, ctx.context_phrase())]

    blocks = [
        "Win rate is each bandit's share of the victories in the games it played (a victory "
        "shared by m players counts 1/m), so the fair share is exactly 1/players. The effect "
        "of a bandit is its win rate minus the average bandit's, from one linear-probability "
        "model over every bandit of every game with the setting (player count) and the seat "
        "order from the First Player as controls; standard errors are clustered by game.",
        w.figure("balance_effects",
                 "Each bandit's win rate minus the average bandit's (percentage points), "
                 "controlling for seat and player count; 95% intervals, filled = significant "
                 f"after {ctx.corr_name} correction.",
                 lambda fig, ax: plots.plot_bandit_effects(ax[0], effects.table), size=(7, 4)),
        w.table("balance_effects", "Bandit effects on the win rate (percentage points)",
                effects.table, pd.DataFrame({
                    "bandit": effects.table["bandit"].str.title(),
                    "effect (95% CI)": [_pp_ci(*r) for r in effects.table[
                        ["estimate", "lo", "hi"]].itertuples(index=False)],
                    "adjusted p": effects.table["p_adjusted"].map(_p),
                    "significant": effects.table["significant"].map(_yes),
                    "games": effects.table["n"].map("{:,}".format)})),
        f"Spread between the strongest and weakest bandit: "
        f"{_pp_ci(spread.gap.estimate, spread.gap.lo, spread.gap.hi)} percentage points "
        "(picked after looking, so it leans slightly high).",
        w.figure("balance_win_rates",
                 "Win rate of each bandit by setting with Wilson 95% intervals; dashed lines: the "
                 "fair share 1/players in the colour of the setting.",
                 lambda fig, ax: plots.plot_win_rates(ax[0], rates), size=(9, 4.5)),
        w.table("balance_win_rates", "Win rate by bandit and setting", rates, pd.DataFrame({
            "setting": rates["label"], "bandit": rates["bandit"].str.title(),
            "games": rates["n"].map("{:,}".format),
            "win rate (95% CI)": [_pct_ci(*r) for r in rates[["rate", "lo", "hi"]].itertuples(
                index=False)],
            "fair share": rates["fair_share"].map(_pct),
            "vs fair (pp)": rates["vs_fair"].map(_pp),
            "adjusted p": rates["p_adjusted"].map(_p),
            "significant": rates["significant"].map(_yes)})),
        w.figure("balance_scores", "Mean final score of each bandit by setting, 95% intervals.",
                 lambda fig, ax: plots.plot_mean_scores(ax[0], scores), size=(9, 4.5)),
        w.table("balance_score_effects", "Bandit effects on the final score (dollars), "
                "controlling for seat and player count", score_effects.table, pd.DataFrame({
                    "bandit": score_effects.table["bandit"].str.title(),
                    "effect (95% CI)": [_usd_ci(*r, signed=True) for r in score_effects.table[
                        ["estimate", "lo", "hi"]].itertuples(index=False)],
                    "adjusted p": score_effects.table["p_adjusted"].map(_p),
                    "significant": score_effects.table["significant"].map(_yes)})),
    ]
    present = [s for s in setting_order(f) if s in set(scores["setting"])]
    if present:
        blocks.append(_per_setting_figure(
            w, "balance_loot", "Mean dollars per game of each bandit by kind (purses, jewels, "
            "strongboxes, ransoms, Gunslinger bonus).", present,
            lambda ax, sid: plots.plot_loot_mix(ax, scores, sid, title="Dollars by kind"),
            max_cols=3, panel=(5.5, 4.8)))
    blocks.append(w.table("balance_scores", "Mean score by bandit and setting", scores,
                          pd.DataFrame({
                              "setting": scores["label"], "bandit": scores["bandit"].str.title(),
                              "mean score (95% CI)": [_usd_ci(*r) for r in scores[
                                  ["mean", "lo", "hi"]].itertuples(index=False)],
                              **{k: scores[f"mean_{k}"].map(_usd)
                                 for k in balance.LOOT_KINDS}})))
    return Section("Character balance", blocks), headline


def _seats_section(ctx: _Context):
    f, w, corr, lvl = ctx.f, ctx.w, ctx.correction, ctx.level
    order = seats_mod.order_win_rates(f, lvl, corr)
    first = order[order["order"] == 0]
    parts = [f"{_pp_ci(r.vs_fair, r.lo - r.fair_share, r.hi - r.fair_share)} at {r.label}"
             for r in first.itertuples()]
    n_sig = int(first["significant"].sum())
    verdict = ("significant in every setting" if n_sig == len(first) else
               "not significant in any setting" if n_sig == 0 else
               "significant at " + ", ".join(first.loc[first["significant"], "label"]))
    verdict += f" after {ctx.corr_name} correction"
    headline = ["First Player advantage (the win rate of the First Player of round 1 minus the "
                "fair share 1/players, percentage points, 95% CI): " + "; ".join(parts)
                + f"; {verdict}."]
    blocks = [
        "Seats are counted clockwise from the First Player of round 1 (who is drawn at random). "
        "The First Player starts in the caboose, the next player in the car in front of it, "
        "and so on alternately; the First Player role moves clockwise every round.",
        w.figure("seats_order", "Win rate by seat counted from the First Player of round 1, "
                 "Wilson 95% intervals; dashed: the fair share 1/players.",
                 lambda fig, ax: plots.plot_order_win_rates(ax[0], order), size=(9, 4.5)),
        w.table("seats_order", "Win rate by seat from the First Player", order, pd.DataFrame({
            "setting": order["label"],
            "seat": order["order"].map(lambda o: "First Player" if o == 0 else f"+{o}"),
            "win rate (95% CI)": [_pct_ci(*r) for r in order[["rate", "lo", "hi"]].itertuples(
                index=False)],
            "vs fair (pp)": order["vs_fair"].map(_pp),
            "mean score": order["mean_score"].map(_usd),
            "adjusted p": order["p_adjusted"].map(_p),
            "significant": order["significant"].map(_yes)})),
    ]
    mixed = any(len(set(seat_policies(x))) > 1 for x in f.settings["policies"]) \
        if "policies" in f.settings else False
    if mixed:
        by_seat = seats_mod.seat_win_rates(f, lvl, corr)
        blocks += [
            "Some settings seat different policies, so the win rate by seat (player number) "
            "measures the policies against each other.",
            w.figure("seats_by_seat", "Win rate by seat (player number), Wilson 95% intervals; "
                     "dashed: the fair share.",
                     lambda fig, ax: plots.plot_order_win_rates(
                         ax[0], by_seat, column="seat", title="Win rate by seat"), size=(9, 4.5)),
            w.table("seats_by_seat", "Win rate by seat (player number)", by_seat, pd.DataFrame({
                "setting": by_seat["label"], "seat": by_seat["seat"],
                "win rate (95% CI)": [_pct_ci(*r) for r in by_seat[["rate", "lo", "hi"]]
                                      .itertuples(index=False)],
                "vs fair (pp)": by_seat["vs_fair"].map(_pp),
                "adjusted p": by_seat["p_adjusted"].map(_p),
                "significant": by_seat["significant"].map(_yes)})),
        ]
        for r in by_seat[by_seat["seat"] == 0].itertuples():
            headline.append(f"Seat 0 ({_seat_policy(f, r.setting)}) wins "
                            f"{_pct_ci(r.rate, r.lo, r.hi)} of games at {r.label}, against a "
                            f"fair share of {_pct(r.fair_share)}.")
    return Section("Seat and First Player advantage", blocks), headline


def _seat_policy(f: Frames, sid: str) -> str:
    row = f.settings[f.settings["setting"].astype(str) == sid]
    if not len(row):
        return "?"
    names = seat_policies(row["policies"].iloc[0])
    return names[0] if names else "?"


def _gunslinger_section(ctx: _Context):
    f, w, corr, lvl = ctx.f, ctx.w, ctx.correction, ctx.level
    summary = gun.gunslinger_summary(f, lvl)
    shares = gun.gunslinger_shares(f)
    by_bandit = gun.gunslinger_by_bandit(f, lvl, corr)
    with_gun = summary[summary["awarded_rate"] > 0]
    if "gunslinger_bonus" in f.settings:  # a title worth $0 decides nothing
        paid = f.settings.loc[f.settings["gunslinger_bonus"].astype(int) > 0, "setting"]
        with_gun = with_gun[with_gun["setting"].isin(set(paid.astype(str)))]
    by_bandit = by_bandit[by_bandit["setting"].isin(set(with_gun["setting"]))]
    by_bandit = by_bandit.reset_index(drop=True)
    headline = []
    if len(with_gun):
        parts = [f"{_pct_ci(r.changed_rate, r.changed_lo, r.changed_hi)} at {r.label}"
                 for r in with_gun.itertuples()]
        headline.append("The Gunslinger bonus changes the winner of the game (share of games, "
                        "95% CI): " + "; ".join(parts) + ".")
    blocks = [
        "The Gunslinger is the player who fired the most bullets (ties share it); the bonus "
        "\"changes the winner\" when the winner with the bonus differs from the winner on loot "
        "alone.",
        w.table("gunslinger_summary", "How often the Gunslinger is awarded, shared and decisive",
                summary, pd.DataFrame({
                    "setting": summary["label"], "games": summary["games"].map("{:,}".format),
                    "awarded (95% CI)": [_pct_ci(*r) for r in summary[
                        ["awarded_rate", "awarded_lo", "awarded_hi"]].itertuples(index=False)],
                    "mean Gunslingers": summary["mean_gunslingers"].map(lambda x: f"{x:.2f}"),
                    "shared, when awarded": [_pct_ci(*r) for r in summary[
                        ["shared_rate", "shared_lo", "shared_hi"]].itertuples(index=False)],
                    "changed the winner": [_pct_ci(*r) for r in summary[
                        ["changed_rate", "changed_lo", "changed_hi"]].itertuples(index=False)]})),
        w.figure("gunslinger_shares", "Share of games by number of Gunslingers.",
                 lambda fig, ax: plots.plot_gunslinger_shares(ax[0], shares), size=(8, 4.5)),
    ]
    if len(by_bandit):
        blocks += [
            w.figure("gunslinger_by_bandit", "Share of its games in which each bandit is a "
                     "Gunslinger, Wilson 95% intervals; dashed: the even share (mean Gunslingers "
                     "per game / players).",
                     lambda fig, ax: plots.plot_gunslinger_by_bandit(ax[0], by_bandit),
                     size=(9, 4.5)),
            w.table("gunslinger_by_bandit", "Who gets the Gunslinger bonus, and who wins by it",
                    by_bandit, pd.DataFrame({
                        "setting": by_bandit["label"], "bandit": by_bandit["bandit"].str.title(),
                        "Gunslinger (95% CI)": [_pct_ci(*r) for r in by_bandit[
                            ["rate", "lo", "hi"]].itertuples(index=False)],
                        "even share": by_bandit["fair_share"].map(_pct),
                        "adjusted p": by_bandit["p_adjusted"].map(_p),
                        "won by the bonus (95% CI)": [_pct_ci(*r) for r in by_bandit[
                            ["decided_rate", "decided_lo", "decided_hi"]].itertuples(
                            index=False)]})),
        ]
    else:
        blocks.append("No setting awards the Gunslinger bonus (2-player games or bonus 0).")
    return Section("Gunslinger", blocks), headline


def _round_cards_section(ctx: _Context):
    f, w, corr, lvl = ctx.f, ctx.w, ctx.correction, ctx.level
    effects = rc.card_effects(f, level=lvl, correction=corr)
    if effects.empty:
        return Section("Round and station cards", [
            "No round or station card varies between games (the rules fix the deck)."]), []
    by_bandit = rc.card_bandit_effects(f, lvl, corr)
    positions = rc.card_position_effects(f, level=lvl, correction=corr)
    headline = []
    ms = effects[effects["metric"] == "mean_score"]
    sig = ms[ms["significant"]]
    if len(sig):
        top = sig.loc[sig["effect"].abs().idxmax()]
        headline.append(f"The card that moves scores most is {_card(top['card'])}: "
                        f"{_usd_ci(top['effect'], top['lo'], top['hi'], signed=True)} per "
                        f"bandit at {top['label']}, against a deck with another card in its "
                        "place.")
    blocks = [
        "Each game's deck holds 4 of the 7 round cards plus 1 of the 3 station cards, drawn at "
        "random, so \"with the card minus without\" is the effect of having that card in the "
        "deck instead of an average other card (station cards: instead of another station "
        "card). Because every deck holds the same number of cards, a card that raises scores "
        "makes the others look slightly negative.",
        w.figure("cards_mean_score", "Change in the mean score per bandit with each card in the "
                 "deck, 95% intervals.",
                 lambda fig, ax: plots.plot_card_effects(ax[0], effects, "mean_score"),
                 size=(8, 6)),
    ]
    others = [m for m in GAME_METRICS if m != "mean_score"]

    def other_metrics(fig, axes):
        for ax, m in zip(axes, others):
            plots.plot_card_effects(ax, effects, m, legend=False)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", frameon=False,
                   ncols=min(len(labels), 4), fontsize="small")

    blocks.append(w.figure("cards_other_metrics", "Change in the spread of scores, shots, "
                           "neutral bullets and the Gunslinger changing the winner with each "
                           "card in the deck, 95% intervals.", other_metrics, size=(14, 11),
                           grid=(2, 2)))
    blocks.append(w.table("cards_effects", "Card effects on game metrics", effects, pd.DataFrame({
        "setting": effects["label"], "card": effects["card"].map(_card),
        "metric": effects["metric"],
        "with": [_metric_value(m, x) for m, x in zip(effects["metric"], effects["with_card"])],
        "without": [_metric_value(m, x) for m, x in zip(effects["metric"],
                                                         effects["without_card"])],
        "change (95% CI)": [_metric_ci(m, x, lo, hi) for m, x, lo, hi in effects[
            ["metric", "effect", "lo", "hi"]].itertuples(index=False)],
        "adjusted p": effects["p_adjusted"].map(_p),
        "significant": effects["significant"].map(_yes)})))

    present = [s for s in setting_order(f) if s in set(by_bandit["setting"])]
    if present:
        blocks.append(_per_setting_figure(
            w, "cards_by_bandit", "Change in each bandit's win rate (percentage points) with "
            f"each card in the deck; * = significant after {ctx.corr_name} correction.", present,
            lambda ax, sid: plots.plot_card_bandit_heatmap(ax, by_bandit, sid),
            max_cols=2, panel=(8, 5.5)))
        shown = by_bandit[by_bandit["significant"]].sort_values("p_adjusted").head(30)
        blocks.append(w.table("cards_by_bandit", "Card effects on each bandit's win rate",
                              by_bandit, pd.DataFrame({
                                  "setting": shown["label"], "card": shown["card"].map(_card),
                                  "bandit": shown["bandit"].str.title(),
                                  "with": shown["rate_with"].map(_pct),
                                  "without": shown["rate_without"].map(_pct),
                                  "change, pp (95% CI)": [_pp_ci(*r) for r in shown[
                                      ["effect", "lo", "hi"]].itertuples(index=False)],
                                  "adjusted p": shown["p_adjusted"].map(_p)}),
                              note=f"Shown: the significant rows ({len(shown)} of "
                                   f"{len(by_bandit)}, at most 30)."))
    pos_present = [s for s in setting_order(f) if s in set(positions["setting"])]
    if pos_present:
        blocks.append(_per_setting_figure(
            w, "cards_by_position", "Change in the mean score per bandit when the card is the "
            "round-j card, against decks without it, 95% intervals.", pos_present,
            lambda ax, sid: plots.plot_card_positions(ax, positions, sid),
            max_cols=2, panel=(8, 5)))
        shown = positions[positions["significant"]].sort_values("p_adjusted").head(30)
        blocks.append(w.table("cards_by_position", "Card effects by position in the deck",
                              positions, pd.DataFrame({
                                  "setting": shown["label"], "card": shown["card"].map(_card),
                                  "round": shown["position"],
                                  "change (95% CI)": [_metric_ci(m, x, lo, hi) for m, x, lo, hi
                                                      in shown[["metric", "effect", "lo", "hi"]]
                                                      .itertuples(index=False)],
                                  "adjusted p": shown["p_adjusted"].map(_p)}),
                              note=f"Shown: the significant rows ({len(shown)} of "
                                   f"{len(positions)}, at most 30)."))
    return Section("Round and station cards", blocks), headline


def _per_setting_figure(w, name, caption, settings, draw, max_cols, panel):
    """A grid of one panel per setting (``draw(ax, setting)``), at most ``max_cols`` wide;
    ``panel`` is the (width, height) of one panel in inches."""
    n = len(settings)
    cols = min(n, max_cols)
    rows = math.ceil(n / cols)

    def render(fig, axes):
        for ax, sid in zip(axes, settings):
            draw(ax, sid)
        for ax in axes[n:]:
            ax.set_visible(False)

    return w.figure(name, caption, render, size=(panel[0] * cols, panel[1] * rows),
                    grid=(rows, cols))


def _compare_section(ctx: _Context):
    f, w, corr, lvl = ctx.f, ctx.w, ctx.correction, ctx.level
    pairs = compare_mod.default_pairs(f.settings)
    if not pairs:
        return Section("Comparison on the same seeds", [
            "Nothing to compare: no two settings share a player count and line-up."]), []
    table = compare_mod.compare(f, pairs, lvl, corr)
    headline = []
    for base, other in pairs:
        t = table[(table["baseline"] == base) & (table["setting"] == other)]
        score = t[t["quantity"] == "mean_score"].iloc[0]
        line = (f"{t['label'].iloc[0]} against {t['baseline_label'].iloc[0]} (same seeds): mean "
                f"score {_usd_ci(score['difference'], score['lo'], score['hi'], signed=True)}")
        bandits = t[(t["group"] == "bandit") & t["significant"]]
        if len(bandits):
            top = bandits.loc[bandits["difference"].abs().idxmax()]
            line += (f"; the largest change in a bandit's win rate is "
                     f"{top['quantity'][4:].title()}'s, "
                     f"{_pp_ci(top['difference'], top['lo'], top['hi'])} points")
        else:
            line += "; no bandit's win rate changes significantly"
        headline.append(line + ".")
    blocks = [
        "Each setting is compared with the first setting listed with the same player count and "
        "line-up. Game i of both settings starts from the same seeds, so differences are taken "
        "game by game (bandit by bandit, seat by seat) and their intervals come from the paired "
        "differences.",
        w.figure("compare_bandits", "Change in each bandit's win rate against the baseline "
                 "setting on the same seeds, 95% paired intervals.",
                 lambda fig, ax: plots.plot_comparison(ax[0], table, "bandit"), size=(8, 5)),
        w.figure("compare_seats", "Change in each seat's win rate against the baseline setting "
                 "on the same seeds, 95% paired intervals.",
                 lambda fig, ax: plots.plot_comparison(ax[0], table, "seat"), size=(8, 4.5)),
    ]

    def fmt(row):
        q = row["quantity"]
        if q in GAME_METRICS:
            return (_metric_value(q, row["baseline_mean"]), _metric_value(q, row["mean"]),
                    _metric_ci(q, row["difference"], row["lo"], row["hi"]))
        return (_pct(row["baseline_mean"]), _pct(row["mean"]),
                _pp_ci(row["difference"], row["lo"], row["hi"]) + " pp")

    cells = [fmt(r) for _, r in table.iterrows()]
    blocks.append(w.table("compare", "Differences on the same seeds (setting minus baseline)",
                          table, pd.DataFrame({
                              "setting": table["label"], "baseline": table["baseline_label"],
                              "quantity": table["description"],
                              "baseline value": [c[0] for c in cells],
                              "value": [c[1] for c in cells],
                              "difference (95% CI)": [c[2] for c in cells],
                              "adjusted p": table["p_adjusted"].map(_p),
                              "significant": table["significant"].map(_yes)})))
    return Section("Comparison on the same seeds", blocks), headline


def _methods_section(ctx: _Context, experiment) -> Section:
    corr = {"holm": "Holm-Bonferroni correction (it controls the chance of any false positive "
                    "in a table at 5%)",
            "bh": "Benjamini-Hochberg correction (it controls the expected share of false "
                  "positives among the significant rows of a table at 5%)"}[ctx.correction]
    return Section("Methods", [
        f"Multiple comparisons: every table is one family of tests, adjusted with the {corr}; "
        "\"significant\" means an adjusted p-value below 0.05. Intervals are not adjusted.",
        f"Intervals are {ctx.level:.0%}: Wilson score intervals for rates, normal intervals for "
        "means, Welch intervals for differences of means, Newcombe's hybrid score intervals for "
        "differences of rates, and paired-difference intervals for comparisons on the same "
        "seeds. Tests against the fair share are score tests.",
        "Bandit effects come from a least-squares (linear-probability) model of each bandit's "
        "share of the victory on bandit, setting and seat-order-within-setting dummies, one row "
        "per bandit per game, with cluster-robust (CR1) standard errors by game; an effect is "
        "the bandit's coefficient minus the mean of the bandits' coefficients.",
        "Everything here is computed from the saved results (`coltsim report` re-renders it "
        "without simulating).",
    ])


def _card(name: str) -> str:
    return plots._card_label(name)


# --- re-rendering ----------------------------------------------------------------------------
def load_saved_results(data_dir):
    """Load saved results: a runner folder (``manifest.json`` and chunk files) through
    ``coltsim.load_results``, or the plain layout of
    :func:`coltsim.analysis.frames.write_frames` (``players.parquet`` ...)."""
    data_dir = Path(data_dir)
    if (data_dir / "players.parquet").exists():
        return read_frames(data_dir)
    if (data_dir / "manifest.json").exists():
        from .results import load_results, read_manifest

        r = load_results(data_dir)
        return Frames(r.players, r.games, r.settings, read_manifest(data_dir))
    raise ValueError(f"{data_dir}: no saved results (neither manifest.json nor players.parquet)")


def render_from_folder(folder, data=None) -> Report:
    """Re-render ``reports/NAME`` from saved data, without simulating.

    The experiment is read from ``folder/experiment.toml`` if it is there; the data from
    ``data`` if given, else ``folder/data``, else the experiment's output folder's ``data``.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder}: no such report folder")
    experiment = None
    if (folder / "experiment.toml").exists():
        experiment = load_experiment(folder / "experiment.toml")
    candidates = [Path(data)] if data is not None else [folder / "data", folder]
    for c in candidates:
        if c.is_dir() and any(c.iterdir()):
            try:
                results = load_saved_results(c)
            except (ValueError, OSError):
                if data is not None:
                    raise
                continue
            return build_report(results, experiment, folder)
    raise ValueError(f"{folder}: no saved results found in "
                     f"{' or '.join(str(c) for c in candidates)}")


__all__ = ["Figure", "Report", "Section", "Table", "build_report", "load_saved_results",
           "render_from_folder"]
