#!/bin/sh
# The MLIR benchmark (DialEgg's cases): regenerates the programs in bench/mlir/cases and
# prints a markdown table: kernel run time of the original, `mlir-opt --canonicalize`, ours,
# ours + canonicalize (median of 11 calls each), speedups, and our optimization time broken
# down (MLIR->egglog, saturation, extraction, egglog->MLIR). Needs mlir-opt-19,
# mlir-cpu-runner-19 and libmlir-19. Pass case names (2mm, 80mm, grayscale, ...) to select.
set -e
cd "$(dirname "$0")/../.."
python3 bench/mlir/gen.py bench/mlir/cases
cargo run --release -q -p spores-mlir --example mlir_bench -- "$@"
