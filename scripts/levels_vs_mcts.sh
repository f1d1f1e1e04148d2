#!/usr/bin/env bash
# Today's levels against OpenSpiel's MCTS at ten times their time per move (docs/BOTS.md,
# "Against OpenSpiel's MCTS"). For each level L:
#   1. its time per move: `jchomp-bot engine --bot level:L` as an engine against greedy and
#      random, three players, every cyclic seat rotation, each board once (--st 60s, never
#      binding); the median (and max) of its moves' times;
#   2. a 3-player tournament {level:L, mcts, greedy} and a 4-player one {level:L, mcts, greedy,
#      random}, every seat order, the boards in turn, with --st = 10 x that median (at least 10 ms:
#      the log's times are whole milliseconds) for every seat; the level plays in-process.
# A move's time is the runner's, from writing `go` to reading `bestmove` (--debug timestamps).
# One line per run goes to OUT/summary.tsv, with MCTS's median time and simulations a move and
# how many of its moves came from a finished search (an `info` line) rather than its fallback.
#
#   scripts/levels_vs_mcts.sh OUT_DIR [OPENSPIEL_PYTHON]
#
# OPENSPIEL_PYTHON: a python with open-spiel==2.0.2 (default: target/venvs/openspiel/bin/python,
# the environment the tests make; clients/engines/openspiel/README.md says how to make one).
# Environment: LEVELS (default "1 2 3 4 5"); ROUNDS3, ROUNDS4: boards played with three and four
# players, the first ones of the file in turn (default 5; 0 skips); BOARDS (default
# scripts/levels_vs_mcts.jsonl); JCHOMP_BOT (default target/release/jchomp-bot).
set -euo pipefail

cd "$(dirname "$0")/.."
out=${1:?usage: scripts/levels_vs_mcts.sh OUT_DIR [OPENSPIEL_PYTHON]}
python=${2:-target/venvs/openspiel/bin/python}
bot=${JCHOMP_BOT:-target/release/jchomp-bot}
boards=${BOARDS:-scripts/levels_vs_mcts.jsonl}
levels=${LEVELS:-1 2 3 4 5}
rounds3=${ROUNDS3:-5}
rounds4=${ROUNDS4:-5}
engine=clients/engines/openspiel/engine.py

for need in "$bot" "$python" "$boards"; do
    [[ -e $need ]] || { echo "missing: $need" >&2; exit 1; }
done
"$python" -c 'import pyspiel' || { echo "$python has no open_spiel" >&2; exit 1; }
mkdir -p "$out"
summary=$out/summary.tsv
[[ -e $summary ]] || printf 'level\tplayers\tlevel_ms_median\tlevel_ms_max\tst_ms\tmcts_ms_median\tmcts_sims_median\tmcts_searched\tgames\tlevel_pct\tmcts_pct\tgreedy_pct\trandom_pct\tfailures\twall_s\n' >"$summary"

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# The sorted values of a list of numbers on standard input: "median max count".
stats() {
    sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)], v[NR], NR; else print "- - 0" }'
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

# "games level% mcts% greedy% random% failures" from a results.json.
scores() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
standings = {s["name"]: s for s in json.load(open(sys.argv[1]))["standings"]}
pct = lambda n: f'{100 * standings[n]["score"] / standings[n]["games"]:.1f}' if n in standings else "-"
fails = sum(sum(s["failures"].values()) for s in standings.values())
names = [sys.argv[2], "mcts", "greedy", "random"]
print(standings[sys.argv[2]]["games"], *map(pct, names), fails)
EOF
}

# Step 1: level L's median and max ms per move, as an engine.
measure() {
    local level=$1 dir=$out/level$1/measure
    "$bot" tournament --engine "name=level:$level,cmd=$bot engine --bot level:$level" \
        --bot greedy --bot random --players 3 --openings "$boards" --rounds 5 --st 60s \
        --concurrency 1 --quiet --debug --out "$dir" >"$dir.txt" 2>"$dir.debug"
    move_ms "level:$level" "$dir.debug" | stats
}

# Step 2: one tournament of level L against MCTS (and greedy, random) at --st ST ms.
versus() {
    local level=$1 players=$2 rounds=$3 st=$4 stats=$5 dir=$out/level$1/p$2 others=(--bot greedy)
    ((players == 4)) && others+=(--bot random)
    local start=$SECONDS
    "$bot" tournament --bot "level:$level" --engine "name=mcts,cmd=$python $engine" "${others[@]}" \
        --players "$players" --seating all --openings "$boards" --rounds "$rounds" --st "${st}ms" \
        --concurrency 1 --quiet --debug --out "$dir" >"$dir.txt" 2>"$dir.debug"
    local mcts_ms mcts_moves mcts_sims searched result
    read -r mcts_ms _ mcts_moves < <(move_ms mcts "$dir.debug" | stats)
    read -r mcts_sims _ searched < <(info_field mcts nodes "$dir.debug" | stats)
    result=$(scores "$dir/results.json" "level:$level")
    printf '%s\t' "$level" "$players" $stats "$st" "$mcts_ms" "$mcts_sims" "$searched/$mcts_moves" \
        $result "$((SECONDS - start))" | sed 's/\t$/\n/' | tee -a "$summary" >&2
}

for level in $levels; do
    mkdir -p "$out/level$level"
    log "level:$level: measuring its time per move"
    read -r median max count < <(measure "$level")
    st=$((10 * (median > 1 ? median : 1)))
    log "level:$level: median ${median} ms, max ${max} ms over ${count} moves; MCTS gets --st ${st}ms"
    for players in 3 4; do
        rounds=$([[ $players == 3 ]] && echo "$rounds3" || echo "$rounds4")
        ((rounds > 0)) || continue
        log "level:$level: $players players, $rounds boards, every seat order"
        versus "$level" "$players" "$rounds" "$st" "$median $max"
    done
done
log "done; $summary:"
column -t -s $'\t' "$summary" >&2
