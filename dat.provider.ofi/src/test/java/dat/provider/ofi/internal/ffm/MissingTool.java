// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.ffm;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/** What a test does when a build tool it needs (gcc, the libfabric headers) is missing. */
final class MissingTool {

    private MissingTool() {
    }

    /**
     * Skips the test, except under {@code CI=true}, where it fails: CI installs the tools, so a missing one there
     * means the check silently stopped running.
     *
     * @param why what is missing and how to install it
     */
    static void skipOrFailOnCi(String why) {
        if ("true".equals(System.getenv("CI"))) {
            fail(why);
        }
        Assumptions.abort(why);
    }
}
