#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Prints the home of the JDK 25 that ./dat and ./mvnw would use (tools/jdk25.sh: JAVA_HOME, java on the PATH,
# /usr/lib/jvm), for a build of your own:  export JAVA_HOME=$(~/jdat/tools/jdk25-home.sh)
# Exits 1, with the reason on stderr and nothing on stdout, when there is none.
set -euo pipefail
# shellcheck source=tools/jdk25.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/jdk25.sh"
jdat_use_jdk25 || exit 1
echo "$JAVA_HOME"
