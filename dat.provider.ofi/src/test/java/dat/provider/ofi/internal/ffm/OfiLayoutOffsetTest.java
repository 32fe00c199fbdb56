// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.ffm;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.layoutcheck.LayoutCheck;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks every Java struct layout of the bindings against the C compiler, as the verbs provider's test does: a C
 * program prints {@code offsetof} and {@code sizeof} of every named member the layouts declare, {@code sizeof} and
 * {@code _Alignof} of every struct, and the value of every {@code FI_*}, {@code AF_*} constant of
 * {@link LibFabric}; gcc compiles it against libfabric-dev's headers; each mismatch is its own assertion. Each
 * accessor's layout ({@code NAME$LAYOUT}) is compared with its member's offset and width too.
 *
 * <p>Needs {@code gcc} and {@code libfabric-dev}: skipped with the fix when missing, except under {@code CI=true},
 * where it fails.
 */
class OfiLayoutOffsetTest {

    static final String MISSING = "install gcc libfabric-dev (apt)";

    private static final String C_NAMES = "(FI|AF)_[A-Z0-9_]+";

    @TempDir
    Path work;

    @Test
    void javaLayoutsMatchTheCCompiler(TestReporter reporter) throws Exception {
        LayoutCheck.Counts compared = LayoutCheck.of(LibFabric.class)
                .include("sys/socket.h", "sys/uio.h", "netinet/in.h", "poll.h", "rdma/fabric.h", "rdma/fi_cm.h",
                        "rdma/fi_domain.h", "rdma/fi_endpoint.h", "rdma/fi_eq.h", "rdma/fi_errno.h", "rdma/fi_rma.h",
                        "rdma/fi_tagged.h")
                .constants(LibFabric.class, C_NAMES).missing(MISSING).run(work);
        reporter.publishEntry("compared", compared.toString());
        assertTrue(compared.structs() >= 39, "structs compared: " + compared.structs());
        assertTrue(compared.members() > 250, "members compared: " + compared.members());
        assertTrue(compared.accessors() > 250, "accessors compared: " + compared.accessors());
        assertTrue(compared.constants() > 50, "constants compared: " + compared.constants());
    }
}
