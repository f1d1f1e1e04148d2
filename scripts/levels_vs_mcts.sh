#!/usr/bin/env bash
# Today's levels against OpenSpiel's MCTS at ten times their time per move (docs/BOTS.md,
# "Against OpenSpiel's MCTS"). For each level L and each of three and four players:
#   1. its time per move: `jchomp-bot engine --bot level:L` as an engine against greedy and
#      random (random twice with four players), every cyclic seat rotation, each board once,
#      --st 60s (never binding); the mean (also the median and max) of its moves' times. The mean,
#      not the median: level:5's moves are either instant (solved) or its whole second, so its
#      median jumps between those two with the sample, and 10 x a small median would cut it short;
#   2. a tournament {level:L, mcts, greedy} (three players) or {level:L, mcts, greedy, random}
#      (four), every seat order, the boards in turn, --st = 10 x that mean (at least 10 ms: the
#      log's times are whole milliseconds) for every seat; MCTS's simulation cap is lifted
#      (option.Simulations=1000000) so that only the time bounds it. The level plays as an engine
#      again, so the log shows whether --st ever cut it short: its stop flag is raised at --st
#      less a tenth (at most 50 ms), and its own budget is a depth, nodes or one second.
# A move's time is the runner's, from writing `go` to reading `bestmove` (--debug timestamps).
# One line per tournament goes to OUT/summary.tsv: the level's measured mean, median and max ms,
# its in-game mean ms and moves that reached its stop time, MCTS's mean and median ms and median
# simulations a move, how many of MCTS's moves came from a finished search (an `info` line)
# rather than its fallback, and the score shares.
#
#   scripts/levels_vs_mcts.sh OUT_DIR [OPENSPIEL_PYTHON]
#
# OPENSPIEL_PYTHON: a python with open-spiel==2.0.2 (default: target/venvs/openspiel/bin/python,
# the environment the tests make; clients/engines/openspiel/README.md says how to make one).
# Environment: LEVELS (default "1 2 3 4 5"); ROUNDS3, ROUNDS4: boards played with three and four
# players, the first ones of the file in turn (default 5; 0 skips); BOARDS (default
# scripts/levels_vs_mcts.jsonl); MARGIN_MS, the runner's --margin-ms (default 500, for a shared
# machine; a seat's time is still its --st); JCHOMP_BOT (default target/release/jchomp-bot).
set -euo pipefail

cd "$(dirname "$0")/.."
out=${1:?usage: scripts/levels_vs_mcts.sh OUT_DIR [OPENSPIEL_PYTHON]}
python=${2:-target/venvs/openspiel/bin/python}
bot=${JCHOMP_BOT:-target/release/jchomp-bot}
boards=${BOARDS:-scripts/levels_vs_mcts.jsonl}
levels=${LEVELS:-1 2 3 4 5}
rounds3=${ROUNDS3:-5}
rounds4=${ROUNDS4:-5}
margin=${MARGIN_MS:-500}
engine=clients/engines/openspiel/engine.py

for need in "$bot" "$python" "$boards"; do
    [[ -e $need ]] || { echo "missing: $need" >&2; exit 1; }
done
"$python" -c 'import pyspiel' || { echo "$python has no open_spiel" >&2; exit 1; }
mkdir -p "$out"
summary=$out/summary.tsv
columns=(level players boards level_ms level_ms_median level_ms_max st_ms level_ms_games
    level_at_stop mcts_ms mcts_ms_median mcts_sims mcts_searched games level_pct mcts_pct greedy_pct
    random_pct failures wall_s)
[[ -e $summary ]] || (IFS=$'\t' && echo "${columns[*]}") >"$summary"

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Numbers on standard input as "mean median max count" (the mean rounded to a whole number).
stats() {
    sort -n | awk '{ v[NR] = $1; sum += $1 } END {
        if (NR) printf "%d %s %s %d\n", sum / NR + 0.5, v[int((NR + 1) / 2)], v[NR], NR
        else print "- - - 0" }'
}

# NAME's milliseconds from the runner's `go` to its `bestmove`, from a --debug log.
move_ms() {
    awk -v name="$1" '$1 == name && $3 == ">" && $4 == "go" { t = $2 }
        $1 == name && $3 == "<" && $4 == "bestmove" { print $2 - t }' "$2"
}

# The FIELD values of NAME's `info` lines, from a --debug log.
info_field() {
    awk -v name="$1" -v field="$2" '$1 == name && $3 == "<" && $4 == "info" {
        for (i = 5; i < NF; i++) if ($i == field) print $(i + 1) }' "$3"
}

# "games level% mcts% greedy% random% failures" from a results.json; failures as NAME:COUNT.
scores() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
standings = {s["name"]: s for s in json.load(open(sys.argv[1]))["standings"]}
pct = lambda n: f'{100 * standings[n]["score"] / standings[n]["games"]:.1f}' if n in standings else "-"
fails = [f'{n}:{sum(s["failures"].values())}' for n, s in standings.items() if any(s["failures"].values())]
names = [sys.argv[2], "mcts", "greedy", "random"]
print(standings[sys.argv[2]]["games"], *map(pct, names), ",".join(fails) or "0")
EOF
}

# The engine `level:L`, as a --engine argument.
level_engine() {
    echo "name=level:$1,cmd=$bot engine --bot level:$1"
}

# Step 1: level L's "mean median max count" of ms per move with P players, as an engine.
measure() {
    local level=$1 players=$2 dir=$out/level$1/measure$2 others=(--bot greedy --bot random)
    ((players == 4)) && others+=(--bot random)
    "$bot" tournament --engine "$(level_engine "$level")" "${others[@]}" --players "$players" \
        --openings "$boards" --rounds 5 --st 60s --margin-ms "$margin" \
        --concurrency 1 --quiet --debug --out "$dir" >"$dir.txt" 2>"$dir.debug"
    move_ms "level:$level" "$dir.debug" | stats
}

# Step 2: level L against MCTS (and greedy, random) with P players on R boards at --st ST ms;
# appends its line to the summary.
versus() {
    local level=$1 players=$2 rounds=$3 st=$4 measured=$5 dir=$out/level$1/p$2 others=(--bot greedy)
    ((players == 4)) && others+=(--bot random)
    local start=$SECONDS
    "$bot" tournament --engine "$(level_engine "$level")" --engine "name=mcts,cmd=$python $engine,option.Simulations=1000000" \
        "${others[@]}" --players "$players" --seating all --openings "$boards" --rounds "$rounds" \
        --st "${st}ms" --margin-ms "$margin" --concurrency 1 --quiet --debug --out "$dir" \
        >"$dir.txt" 2>"$dir.debug"
    local level_ms level_moves at_stop mcts_ms mcts_median mcts_moves mcts_sims searched
    read -r level_ms _ _ level_moves < <(move_ms "level:$level" "$dir.debug" | stats)
    at_stop=$(move_ms "level:$level" "$dir.debug" |
        awk -v st="$st" '$1 >= st - (st / 10 < 50 ? st / 10 : 50)' | wc -l)
    read -r mcts_ms mcts_median _ mcts_moves < <(move_ms mcts "$dir.debug" | stats)
    read -r _ mcts_sims _ searched < <(info_field mcts nodes "$dir.debug" | stats)
    # shellcheck disable=SC2046,SC2086 # the two lists are split into columns on purpose
    printf '%s\t' "$level" "$players" "$rounds" $measured "$st" "$level_ms" "$at_stop/$level_moves" \
        "$mcts_ms" "$mcts_median" "$mcts_sims" "$searched/$mcts_moves" $(scores "$dir/results.json" "level:$level") \
        "$((SECONDS - start))" | sed 's/\t$/\n/' | tee -a "$summary" >&2
}

for level in $levels; do
    mkdir -p "$out/level$level"
    for players in 3 4; do
        rounds=$([[ $players == 3 ]] && echo "$rounds3" || echo "$rounds4")
        ((rounds > 0)) || continue
        log "level:$level, $players players: measuring its time per move"
        read -r mean median max count < <(measure "$level" "$players")
        st=$((10 * (mean > 1 ? mean : 1)))
        log "level:$level: mean $mean ms (median $median, max $max) over $count moves;" \
            "--st ${st}ms, $rounds boards, every seat order"
        versus "$level" "$players" "$rounds" "$st" "$mean $median $max"
    done
done
log "done; $summary:"
column -t -s $'\t' "$summary" >&2
