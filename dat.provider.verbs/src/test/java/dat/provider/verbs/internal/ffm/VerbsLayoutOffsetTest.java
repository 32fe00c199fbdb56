// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.layoutcheck.LayoutCheck;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks every Java struct layout against the C compiler ({@link LayoutCheck}): the {@code sizeof} and
 * {@code _Alignof} of every struct, {@code offsetof} and {@code sizeof} of every named member the Java layouts
 * declare (nested members by their dotted designator) and of every accessor, the value of every {@code IBV_*},
 * {@code RDMA_*} and {@code AF_*} constant of {@link LibIbverbs} and {@link LibRdmacm} and of every {@code E*}
 * constant of {@link Errno}, against the installed rdma-core headers. Each mismatch is its own assertion message.
 *
 * <p>Needs {@code gcc} and the headers of {@code libibverbs-dev} and {@code librdmacm-dev}. When they are missing
 * the test is <b>skipped</b> with "install gcc libibverbs-dev librdmacm-dev (apt)", except when the environment
 * variable {@code CI} is {@code true}: then it <b>fails</b> with that message, so CI cannot silently stop
 * checking the layouts.
 */
class VerbsLayoutOffsetTest {

    static final String MISSING = "install gcc libibverbs-dev librdmacm-dev (apt)";

    /** The constants of the library classes named like C enumerators and macros. */
    private static final String C_NAMES = "(IBV|RDMA|AF)_[A-Z0-9_]+";

    @TempDir
    Path work;

    @Test
    void javaLayoutsMatchTheCCompiler(TestReporter reporter) throws Exception {
        LayoutCheck.Counts compared = LayoutCheck.of(LibIbverbs.class)
                .include("errno.h", "poll.h", "sys/socket.h", "netinet/in.h", "infiniband/verbs.h", "rdma/rdma_cma.h")
                .constants(LibIbverbs.class, C_NAMES).constants(LibRdmacm.class, C_NAMES)
                .constants(Errno.class, "E[A-Z0-9]+").missing(MISSING).run(work);
        reporter.publishEntry("compared", compared.toString());
        assertTrue(compared.members() > 300, "members compared: " + compared.members());
        assertTrue(compared.accessors() > 100, "accessors compared: " + compared.accessors());
    }
}
