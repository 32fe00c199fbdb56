# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by .ci/run and other launchers: points JAVA_HOME at a JDK 25 or newer.
# Keeps JAVA_HOME when it already is one; otherwise tries `java` on the PATH, then /usr/lib/jvm/*.
# Returns non-zero with a message on stderr when there is none.

jdat_java_feature() {
    # The feature release number of the JDK at $1 (25 for "25.0.3"), empty when $1 is not a JDK.
    [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 0
    "$1/bin/java" -XshowSettings:properties -version 2>&1 \
        | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

jdat_use_jdk25() {
    local candidate feature
    for candidate in "${JAVA_HOME:-}" \
                     "$(dirname "$(dirname "$(readlink -f "$(command -v java 2>/dev/null || echo /nonexistent)")")")" \
                     /usr/lib/jvm/*; do
        [ -n "$candidate" ] || continue
        feature=$(jdat_java_feature "$candidate")
        if [ -n "$feature" ] && [ "$feature" -ge 25 ]; then
            export JAVA_HOME="$candidate"
            return 0
        fi
    done
    echo "jDAT needs a JDK 25 or newer and found none (JAVA_HOME='${JAVA_HOME:-}', java on PATH, /usr/lib/jvm)." >&2
    echo "Install one (for example Temurin 25) and set JAVA_HOME to it." >&2
    return 1
}
