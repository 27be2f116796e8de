"""The report of a balance search (coltsim.study.tune), built like an experiment's report: a
:class:`~coltsim.study.report.document.Report` of a headline and sections, its numbers printed
by :mod:`.formatting`, rendered to Markdown and HTML by :mod:`.render`.

:func:`write_tune_report` writes, into the output folder::

    report.md, report.html    the answer first, then the tables and the method
    figures/tune.png          the objective against the value, with intervals; games per value
    tables/tune.csv           one row per value (objective, interval, games, status)
    tables/win_rates.csv      every bandit's win rate per value and setting
    tables/play.csv           whether the players reacted: shots and loot against the reference
    tables/rounds.csv         the search round by round
    tune.toml                 the tune file as it was run (when known)
    manifest.json             the versions and engine hash that played the games, and the search

It writes only these files, all at once (coltsim.study.folder: each whole or not at all, the
manifest last), the tables at 6 significant digits; a folder holding other files keeps them.

The headline says what was measured: a value whose difference from the best (on the same
deals) has an interval above zero is worse, one whose interval holds zero cannot be told apart
from it, whatever the search's stricter elimination rule did, which is reported as a fact of the
search.

This module is imported by the tune command only (the search it reports plays the engine).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.ticker import StrMethodFormatter

from ...rules import Rules
from ..plots import error_extents
from ...runs.runner import manifest_header
from ...words import and_list, bandit_label, plural
from .search import REPS, TuneResult, policies_text, value_text
from ..report import render
from ..report.context import DPI, Writer
from ..report.document import Report, Section
from ..report.formatting import count, num, num_ci, pct, pct_ci, points, pp_ci, usd, usd_ci


def objective_text(result: TuneResult) -> str:
    """What was minimised, in words."""
    s = result.search
    if s.objective.kind == "spread":
        return "spread between the strongest and the weakest bandit's win rate"
    target = ("fair share (1/players)" if s.target == "fair"
              else f"target of {pct(s.objective.targets[0])}")
    return f"distance of {bandit_label(s.objective.bandit)}'s win rate from its {target}"


def _numeric(result: TuneResult) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool)
               for v in result.search.values)


# --- the headline -------------------------------------------------------------------------------
def headline(result: TuneResult) -> list[str]:
    """The answer: the best value with its interval, then every other value as measured
    against it on the same deals (worse where that interval excludes zero), then what the
    search's elimination did."""
    s, e, t = result.search, result.best_estimate, result.table
    names = result.setting_names
    best = value_text(result.best)
    row = t[t["status"] == "best"].iloc[0]
    out = [f"`{s.option} = {best}` gives the smallest {objective_text(result)}: "
           f"{pp_ci(e.estimate, e.lo, e.hi, signed=False)} points (95% CI), "
           f"{'in' if len(names) == 1 else 'averaged over'} {and_list(names)}, with "
           f"{count(row['games'])} games per setting."]
    others = t[t["status"] != "best"]
    worse = others[others["vs_best_lo"] > 0]
    alike = others[~(others["vs_best_lo"] > 0)]

    def versus(rows):  # "7 +2.6 (+0.3 to +4.6), 8 +2.7 (+0.5 to +5.0)"
        return ", ".join(f"{r.value} {pp_ci(r.vs_best, r.vs_best_lo, r.vs_best_hi)}"
                         for r in rows.itertuples())

    told = []
    if len(worse):
        told.append(f"{and_list(list(worse['value']))} {'is' if len(worse) == 1 else 'are'} worse "
                    f"than {best} (the difference, points, 95% CI: {versus(worse)})")
    if len(alike):
        told.append(f"{and_list(list(alike['value']))} cannot be told apart from {best}, so "
                    f"{'it' if len(alike) == 1 else 'each'} may be the best too (the "
                    f"difference's interval holds zero: {versus(alike)})")
    if told:
        out.append(f"On the same deals, {'; '.join(told)}.")
    dropped = others[others["status"] == "dropped"]
    kept_worse = worse[worse["status"] != "dropped"]
    search = (f"The search dropped {and_list(list(dropped['value']))}" if len(dropped)
              else "The search dropped no value")
    search += f" and stopped because {result.stopped}."
    if len(kept_worse):
        search += (f" It kept {and_list(list(kept_worse['value']))} in the running: it drops a value "
                   f"only beyond {result.z:.2f} standard errors (a one-sided cut-off over every "
                   "comparison it could make), a stricter test than the 95% interval.")
    out.append(search)
    if _numeric(result) and result.best in (min(s.values), max(s.values)):
        beyond = result.best - 1 if result.best == min(s.values) else result.best + 1
        if _allowed(s.option, beyond):
            out.append("The best value is at the end of the range tried: the objective may keep "
                       "falling beyond it.")
        else:
            out.append(f"It is the {'least' if beyond < result.best else 'most'} the rule "
                       "allows.")
    if result.warning:
        out.append(f"Warning: {result.warning}")
    return out


def _allowed(option: str, value) -> bool:
    try:
        Rules(**{option: value})
    except ValueError:
        return False
    return True


# --- the sections -------------------------------------------------------------------------------
def _played(result: TuneResult) -> Section:
    s = result.search
    fixed = s.max_games * len(s.values) * len(s.settings)
    lineups = ", ".join(dict.fromkeys(x.lineup_text for x in s.settings))
    return Section("What was played", [
        f"Policy: {policies_text(s.settings)}. Settings: {and_list(result.setting_names)} "
        f"(line-up: {lineups}).",
        f"Values tried: {s.option} = {', '.join(value_text(v) for v in s.values)} (the printed "
        f"rules: {value_text(getattr(Rules(), s.option))}).",
        f"Games: {count(result.games)} in all, in {plural(len(result.rounds), 'round')}: the "
        f"search stopped because {result.stopped}. Giving every value {count(s.max_games)} "
        f"games per setting would have played {count(fixed)}.",
        f"Runtime: {result.seconds:.0f} s (simulation and analysis; shared machine, timings "
        f"are noisy). Seed {result.seed}.",
    ])


def _objective(result: TuneResult, w: Writer) -> Section:
    s, t = result.search, result.table
    names = result.setting_names
    values = list(s.values)
    x = np.array(values, np.float64) if _numeric(result) else np.arange(len(values), dtype=float)
    labels = None if _numeric(result) else list(t["value"])
    kind = "spread" if s.objective.kind == "spread" else "distance"

    def draw(fig, axes):
        plot_tune_objective(axes[0], t, x, labels, names, objective_text(result),
                                  f"{kind} (percentage points)")
        plot_tune_games(axes[1], t, x, labels, s.option)

    figure = w.figure("tune", "Top: the objective at each value (bias-corrected, with its 95% "
                      "interval); the thin lines are each setting's own objective. Bottom: the "
                      "games per setting each value received.", draw, size=(8, 5.5),
                      grid=(2, 1), sharex=True)
    status = [r.status if r.status != "dropped" else
              f"dropped after {count(r.dropped_after)} games" for r in t.itertuples()]
    display = pd.DataFrame({
        s.option: t["value"], "games per setting": t["games"].map(count),
        "objective, points (95% CI)": [pp_ci(*r, signed=False) for r in t[
            ["objective", "lo", "hi"]].itertuples(index=False)],
        "minus the best, same deals (95% CI)": [
            "" if r.status == "best" else pp_ci(r.vs_best, r.vs_best_lo, r.vs_best_hi)
            for r in t.itertuples()],
        **{f"{n} (points)": t[n].map(points) for n in names},
        "status": status})
    return Section("The objective at every value", [
        figure,
        w.table("tune", "The objective at every value", t, display,
                note="Two values' intervals can overlap while their difference is clear: they "
                     "were played on the same deals, so the difference is measured deal by deal "
                     "(the column *minus the best*)."),
    ])


def _reaction(result: TuneResult, w: Writer) -> Section:
    s, play = result.search, result.play

    def change(r, name, cell):
        lo, hi = r[f"{name}_lo"], r[f"{name}_hi"]
        if r[f"{name}_change"] == 0 and lo == 0 and hi == 0:
            return "none"
        return cell(r[f"{name}_change"], lo, hi)

    display = pd.DataFrame({
        s.option: play["value"], "deals where play changed": play["deals_changed"].map(pct),
        "shots per bandit": play["mean_shots"].map(lambda v: num(v, 2)),
        "change of the shots": [change(r, "shots", lambda x, lo, hi: num_ci(x, lo, hi, 2))
                                for _, r in play.iterrows()],
        "loot per bandit": play["mean_loot"].map(usd),
        "change of the loot": [change(r, "loot", lambda x, lo, hi: usd_ci(x, lo, hi, True))
                               for _, r in play.iterrows()]})
    return Section("Did the players react to the rule?", [
        f"On the first round's deals (every value played them), each value against "
        f"{s.option} = {value_text(result.reference)}: the share of deals where any bandit's "
        "shots, loot or bullets received differed, and the change of the mean per bandit "
        "(95% intervals over deals).",
        w.table("play", "Play at every value against the reference", play, display)])


def _win_rates(result: TuneResult, w: Writer) -> Section:
    s, names = result.search, result.setting_names
    best = value_text(result.best)
    rates = result.rates[result.rates["value"] == best]
    cells = {name: {r.bandit: pct_ci(r.win_rate, r.lo, r.hi)
                    for r in rates[rates["setting"] == name].itertuples()} for name in names}
    bandits = list(dict.fromkeys(rates["bandit"]))
    display = pd.DataFrame({"bandit": [bandit_label(b) for b in bandits],
                            **{n: [cells[n].get(b, "") for b in bandits] for n in names}})
    return Section(f"Win rates at {s.option} = {best}", [
        w.table("win_rates", f"Each bandit's win rate at {s.option} = {best} (95% CI)",
                result.rates, display, note="The full table has every value.")])


def _rounds(result: TuneResult, w: Writer) -> Section:
    r = result.rounds
    display = pd.DataFrame({"round": r["round"], "games per setting and value":
                            r["games_per_value"].map(count), "values": r["values"],
                            "games played": r["games"].map(count), "best so far": r["best"],
                            "dropped": r["dropped"].replace("", "-")})
    return Section("The search, round by round", [
        w.table("rounds", "The search, round by round", r, display)])


def method(result: TuneResult) -> str:
    s = result.search
    return (
        f"Every value of {s.option} was played on the same deals (common random numbers: round "
        f"r plays deals 0 to n-1 of a master seed derived from the seed and r, the same for "
        f"every value), so values are compared deal by deal. The first round gave every value "
        f"{count(s.games)} games per setting; each later round doubled the games of the values "
        f"still in the running, up to {count(s.max_games)} (successive elimination). The "
        f"objective of a value is the {objective_text(result)}, per setting, averaged over the "
        f"settings; win rates count a victory shared by m players as 1/m. Its uncertainty comes "
        f"from a bootstrap over deals ({REPS} replicates of Poisson weights, one per deal), the "
        f"same weights for every value (a paired bootstrap). A maximum minus a minimum, or a "
        f"distance, of noisy rates leans high, so estimates and intervals are corrected by the "
        f"bias the bootstrap measures. After each round a value was dropped when its "
        f"difference from the best value, less {result.z:.2f} bootstrap standard errors, was "
        f"still above zero; {result.z:.2f} is the one-sided normal quantile for "
        f"{pct(1 - s.level)} spread over every comparison the search could make "
        f"(Bonferroni), so the best value is dropped with probability at most about "
        f"{pct(1 - s.level)}. The headline calls a value worse when the 95% interval of its "
        f"difference from the best excludes zero, a weaker test than the dropping rule. The "
        f"search stops when one value is left, when the values left are all within "
        f"{points(s.tolerance)} points of the best (by the same margin), or at "
        f"{count(s.max_games)} games per setting and value. Whether the players reacted is "
        f"measured on the first round's deals, which every value played.")


def search_record(search, seed: int) -> dict:
    """What a search's manifest records of what it plays and how many games it may spend."""
    s = search
    return json.loads(json.dumps({
        "option": s.option, "values": [value_text(v) for v in s.values],
        "objective": s.objective.kind, "bandit": s.objective.bandit, "target": s.target,
        "settings": [x.as_dict() for x in s.settings], "seed": seed, "games": s.games,
        "max_games": s.max_games}))


def write_tune_report(result: TuneResult, out_dir, name: str | None = None,
                      description: str = "", text: str = "", dpi: int = DPI) -> Path:
    """Write the report of ``result`` into ``out_dir`` (see the module docstring), all files at
    once (coltsim.study.folder.ReportFiles); returns the path of ``report.md``."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} exists and is not a folder")
    w = Writer(out, dpi)
    sections = [_played(result), _objective(result, w), _reaction(result, w),
                _win_rates(result, w), _rounds(result, w),
                Section("Method", [method(result)])]
    report = Report(f"coltsim tune: {name or out.name}", description, headline(result),
                    sections, out)
    files = w.files
    files.add("report.md", render.markdown(report))
    files.add("report.html", render.html(report, files.files))
    if text:
        files.add("tune.toml", text)
    manifest = {**manifest_header(), **({"experiment": name} if name else {}), "tune": {
        **search_record(result.search, result.seed), "games_played": result.games,
        "best": value_text(result.best)}, "fingerprints": list(result.fingerprints)}
    files.manifest = manifest
    files.write()
    return out / "report.md"


# --- figures -------------------------------------------------------------------------------------
TUNE_COLOURS = {"best": "#d1495b", "in the running": "#3f88c5", "dropped": "0.6"}


def plot_tune_objective(ax, table: pd.DataFrame, x, labels=None, settings=(), title: str = "",
                        ylabel: str = "objective (percentage points)") -> dict:
    """A balance search's objective (coltsim.study.tune ``TuneResult.table``: ``objective, lo,
    hi, status``) at each value, placed at ``x`` (named ``labels`` there, for values that are
    not numbers), with its interval, coloured by status; a thin line per setting (its column of
    ``settings``)."""
    x = np.asarray(x, np.float64)
    artists = {"settings": [], "values": []}
    for name, style in zip(settings, ("--", ":", "-.", (0, (1, 4)))):
        artists["settings"] += ax.plot(x, 100 * table[name].to_numpy(np.float64),
                                       linestyle=style, color="0.45", linewidth=1, label=name)
    for status, colour in TUNE_COLOURS.items():
        hit = (table["status"] == status).to_numpy()
        if not hit.any():
            continue
        y = 100 * table["objective"].to_numpy(np.float64)[hit]
        err = error_extents(y, 100 * table["lo"].to_numpy(np.float64)[hit],
                            100 * table["hi"].to_numpy(np.float64)[hit])
        artists["values"].append(ax.errorbar(
            x[hit], y, yerr=err, fmt="*" if status == "best" else "o", color=colour,
            markersize=12 if status == "best" else 6, capsize=3,
            markerfacecolor="white" if status == "dropped" else colour, label=status))
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    if labels is not None:
        ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
    return artists


def plot_tune_games(ax, table: pd.DataFrame, x, labels=None, xlabel: str = "") -> list:
    """The games per setting a balance search gave each value (``TuneResult.table``), placed
    at ``x`` (named ``labels``)."""
    x = np.asarray(x, np.float64)
    width = 0.6 * (np.diff(np.sort(x)).min() if len(x) > 1 else 1.0)
    bars = ax.bar(x, table["games"], width=width,
                  color=[TUNE_COLOURS[s] for s in table["status"]])
    ax.set_ylabel("games per setting")
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    if labels is not None:
        ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
    ax.set_xlabel(xlabel)
    return list(bars)
