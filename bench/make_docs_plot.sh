#!/bin/sh
# Draw a table and Pareto figure (docs/table.md, docs/pareto.png) from a real sweep. The
# documentation's own tables are generated from results/reference/ by bench/readme.py.
#
#   bench/make_docs_plot.sh [EXPERIMENT.yaml] [DATABASE]
#
# Defaults: experiments/quickstart.yaml and results/aesdse.sqlite. Points already in the database
# are not run again, so a second call only redraws. The figure is deterministic (no timestamps in
# the PNG), so it changes in git only when the results change.
set -eu
cd "$(dirname "$0")/.."
experiment=${1:-experiments/quickstart.yaml}
db=${2:-results/aesdse.sqlite}

nice -n 10 aesdse sweep "$experiment" --db "$db" --jobs "${JOBS:-2}" || true   # failures are reported in the table
aesdse report "$experiment" --db "$db" > docs/table.md
aesdse plot "$experiment" --db "$db" --kind pareto --area luts -o docs/pareto.png
aesdse plot "$experiment" --db "$db" --kind bars --area luts -o docs/bars.png
echo "wrote docs/table.md docs/pareto.png docs/bars.png from $experiment ($db)"
