# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by bench/compare.sh and bench/profile.sh: builds the jDAT runtime image and the JMH jar when stale.
# Needs $root (the checkout) and a log function `log MESSAGE`; defines $image, $dat and $bench_jar.

: "${root:?jdat-build.sh needs root, the checkout}"
image="$root/jlink-image/target/maven-jlink/default"
dat="$image/bin/dat"
bench_jar="$root/dat.bench/target/benchmarks.jar"

newer_than() {  # target dir...: prints the first source or pom under the dirs newer than target (bench/ aside)
    local target=$1
    shift
    find "$@" \( -name target -o -name .git -o -path "$root/bench" \) -prune -o -type f \
        \( -path '*/src/*' -o -name pom.xml \) -newer "$target" -print -quit
}

build_jdat() {  # logfile: Maven's output goes there; exits 2 when the build fails
    local logfile=$1 stale=0
    for artifact in "$dat" "$bench_jar"; do
        if [ ! -e "$artifact" ] || [ -n "$(newer_than "$artifact" "$root")" ]; then
            stale=1
        fi
    done
    [ "$stale" -eq 1 ] || return 0
    log "building the jDAT runtime image and benchmarks.jar (./mvnw package, no tests)"
    # The same lock as ./dat, so a ./dat started meanwhile waits instead of building the image twice.
    mkdir -p "$root/jlink-image/target"
    (
        flock 9
        local started
        started=$(mktemp "${TMPDIR:-/tmp}/jdat-build.XXXXXX")
        if ! (cd "$root" && ./mvnw -B -q --no-transfer-progress -pl jlink-image,dat.bench -am package \
                -DskipTests) >> "$logfile" 2>&1; then
            rm -f "$started"
            echo "$(basename "$0"): building jDAT failed; Maven's output is in $logfile" >&2
            exit 2
        fi
        # The build's start time becomes the artifacts' (as ./dat does): sources saved meanwhile count as newer.
        touch -r "$started" "$dat" "$bench_jar"
        rm -f "$started"
    ) 9> "$root/jlink-image/target/.dat-build.lock"
}
