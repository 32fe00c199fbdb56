#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Finishes the runtime image after jlink (the jlink-image build runs it in the package phase): trains an AOT cache
# (JDK 25, JEP 483/514/515) on `dat info -v` into lib/dat.aot, and writes bin/dat to use it.
#
# Why: most of a short `dat` command's time is the JVM loading, linking and first running our classes and picocli's
# (picocli reflects over every subcommand at start). The cache holds them loaded and linked, with the training run's
# method profiles, so `dat info` starts in a fraction of the time. It is tied to this image's own JVM and is useless
# to any other, which is why it is made here, by the image's bin/java, and lives in the image.
#
# Usage: aot-launcher.sh IMAGE_DIR
set -eu
image=$1
main=dat.cli/dat.cli.DatCommand
cache=$image/lib/dat.aot
log=$image/../aot-training.log

# The training run must not see the builder's registry settings: what it loads is what a plain `dat info` loads.
# No machine code goes into the cache, only classes and profiles: JDK 25 also stores the adapters it generated for
# this machine's CPU (AOTAdapterCaching, on by default when a cache is created) and loads them on any CPU, so an
# image built on an AVX-512 host died of SIGILL in an adapter on an AVX2-only one (the soft-RoCE guest's qemu CPU).
rm -f "$cache"
if ! env -u DAT_PROVIDERS -u DAT_OVERRIDE -u DAT_PROVIDER_PATH -u JDK_JAVA_OPTIONS -u JAVA_TOOL_OPTIONS \
        "$image/bin/java" -XX:+UnlockDiagnosticVMOptions -XX:-AOTAdapterCaching -XX:-AOTStubCaching \
        -XX:AOTCacheOutput="$cache" -m "$main" info -v >"$log" 2>&1; then
    echo "aot-launcher.sh: the training run failed (log: $log)" >&2
    exit 1
fi
[ -s "$cache" ] || { echo "aot-launcher.sh: no AOT cache was written (log: $log)" >&2; exit 1; }

# jlink's own launcher, plus the cache. The JVM maps the cache only when it matches (same JVM, same module
# options); a user's JDK_JAVA_OPTIONS that changes what it depends on makes the JVM run without it, quietly. A missing
# cache would make the JVM print an error at every start, so the launcher names it only when it is there.
cat >"$image/bin/dat" <<LAUNCHER
#!/bin/sh
# The jDAT launcher, written by jlink-image/src/build/aot-launcher.sh.
DIR=\$(dirname "\$0")
if [ -f "\$DIR/../lib/dat.aot" ]; then
    exec "\$DIR/java" -XX:AOTCache="\$DIR/../lib/dat.aot" -m $main "\$@"
fi
exec "\$DIR/java" -m $main "\$@"
LAUNCHER
chmod 755 "$image/bin/dat"
