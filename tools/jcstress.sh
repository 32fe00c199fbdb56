#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the loopback rings' jcstress tests (dat.jcstress) on a JDK 25 and fails unless every test ran and passed.
#
#   tools/jcstress.sh [JCSTRESS OPTIONS...]      e.g. tools/jcstress.sh -v, or -t WakeUp -m quick
#
# Finds the JDK the way ./dat does (tools/jdk25.sh) and builds dat.jcstress/target/jcstress.jar through the wrapper
# when it is missing or older than a source. jcstress itself exits 0 when a test cannot run at all (on an older JVM
# every test is a "soft error": nothing was tested), so this script reads the run's closing counts and exits 1 when a
# test failed, erred or none passed. Without -jvmArgs in the options, the tests run in one JVM mode with C2's stress
# flags (the auto-detected modes take about four times as long). Results go to target/jcstress-results (-r overrides).
# Exit codes: 0 every planned test passed; 1 a test failed or erred, or none ran; 2 no JDK 25 or the build failed.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
# shellcheck source=tools/jdk25.sh
. "$root/tools/jdk25.sh"
jdat_use_jdk25 || exit 2

jar="$root/dat.jcstress/target/jcstress.jar"
if [ ! -f "$jar" ] || [ -n "$(find "$root/dat.jcstress/src" "$root/dat.provider.loopback/src/main" "$root/dat.api/src/main" \
        -type f -newer "$jar" -print -quit)" ]; then
    echo "jcstress: building $jar..." >&2
    (cd "$root" && ./mvnw -q -B --no-transfer-progress -pl dat.jcstress -am package -DskipTests -Dmaven.javadoc.skip \
        -Dmaven.source.skip) >&2 || { echo "jcstress: the build failed (Maven's output above)" >&2; exit 2; }
fi

args=("$@")
has() {
    local a
    for a in "${args[@]}"; do [ "$a" = "$1" ] && return 0; done
    return 1
}
has -jvmArgs || args+=(-jvmArgs "-XX:+UnlockDiagnosticVMOptions -XX:+StressLCM -XX:+StressGCM -XX:+StressIGVN \
--enable-native-access=ALL-UNNAMED")
has -r || args+=(-r "$root/target/jcstress-results")

log=$(mktemp "${TMPDIR:-/tmp}/jcstress.XXXXXX")
trap 'rm -f "$log"' EXIT
# jcstress drops its binary result file in the working directory: keep it in target/ with the report.
mkdir -p "$root/target"
status=0
(cd "$root/target" && "$JAVA_HOME/bin/java" -jar "$jar" "${args[@]}") 2>&1 | tee "$log" || status=$?

# The last progress line holds the run's totals: "(Results: 63 planned; 63 passed, 0 failed, 0 soft errs, 0 hard errs)".
totals=$(grep -o 'Results: [0-9]* planned; [0-9]* passed, [0-9]* failed, [0-9]* soft errs, [0-9]* hard errs' "$log" \
    | tail -n 1 || true)
if [ -z "$totals" ]; then
    echo "jcstress: FAILED: the run printed no result totals (exit $status): no test ran" >&2
    exit 1
fi
read -r planned passed failed soft hard <<< "$(tr -cs '0-9' ' ' <<< "$totals")"
echo "jcstress: $planned planned, $passed passed, $failed failed, $soft soft errors, $hard hard errors (exit $status)"
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$soft" -ne 0 ] || [ "$hard" -ne 0 ] || [ "$passed" -eq 0 ] \
        || [ "$passed" -ne "$planned" ]; then
    echo "jcstress: FAILED (a soft error is a test that could not run, e.g. on a JVM older than the classes)" >&2
    exit 1
fi
