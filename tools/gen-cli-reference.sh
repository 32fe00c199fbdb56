#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Rewrites docs/cli/, the dat command reference, from dat.cli's picocli declarations: one Markdown page per command
# with what its --help prints. CliReferenceTest, run by every build, fails while the committed pages differ.
set -eu
cd "$(dirname "$0")/.."
./mvnw -B -q -pl dat.cli -am verify -Dtest=CliReferenceTest -Dsurefire.failIfNoSpecifiedTests=false \
    -Ddat.cli.reference.write=true -Dcheckstyle.skip -Djacoco.skip=true
git status --short docs/cli
