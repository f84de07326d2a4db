#!/bin/sh
# clang-tidy over src/ and tools/ with the checks of .clang-tidy (the bugprone ones); exits non-zero
# on any finding. Uses the compile commands of a build tree (configured here with
# CMAKE_EXPORT_COMPILE_COMMANDS, nothing is built):
#
#   sh scripts/tidy.sh [BUILD_DIR] [REGEX]     default build/, every file of src/ and tools/
#
# e.g. `sh scripts/tidy.sh build src/rma/` for one directory. Runs nproc clang-tidy processes.
set -e
cd "$(dirname "$0")/.."
dir=${1:-build}
regex=${2:-}
command -v clang-tidy >/dev/null 2>&1 && command -v run-clang-tidy >/dev/null 2>&1 ||
  sh scripts/deps.sh tidy
root=$(pwd)
cmake -S . -B "$dir" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
# GCC-only flags (the string-operation strategies of src/CMakeLists.txt, LTO) are not clang's, nor
# is GCC's precompiled header (clang refuses the .gch beside the header it is told to include):
# the checks read a copy of the database without them, each file with only its own includes.
mkdir -p "$dir/tidy"
sed -E 's/ -m(memset|memcpy)-strategy=[^ "]*//g; s/ -flto(=[a-z0-9]*)?//g; s/ -fno-fat-lto-objects//g;
        s/ -Winvalid-pch//g; s/ -include [^ "]*cmake_pch\.hxx//g' \
  "$dir/compile_commands.json" >"$dir/tidy/compile_commands.json"
start=$(date +%s)
run-clang-tidy -quiet -j "$(nproc 2>/dev/null || echo 2)" -p "$dir/tidy" "^$root/${regex:-(src|tools)/}" \
  >"$dir/tidy/out.txt" 2>&1 && rc=0 || rc=$?
# The findings, without the command lines run-clang-tidy echoes and clang's counts of warnings
# from system headers.
# (clang-tidy colours its output even into a file: the escapes go first, so the count below sees
# the findings.)
sed 's/\x1b\[[0-9;]*m//g' "$dir/tidy/out.txt" >"$dir/tidy/plain.txt"
grep -vE '^(clang-tidy|[0-9]+ warnings? (and [0-9]+ errors? )?generated\.|Suppressed [0-9]+ warnings|Use -header-filter)' \
  "$dir/tidy/plain.txt" || true
echo "tidy: $(grep -c '^clang-tidy' "$dir/tidy/out.txt") files in $(( $(date +%s) - start )) s," \
  "$(grep -E ': (warning|error): ' "$dir/tidy/plain.txt" | sort -u | wc -l) findings"
exit $rc
