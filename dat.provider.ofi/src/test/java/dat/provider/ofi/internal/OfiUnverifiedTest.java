// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatEvdFlags;
import dat.api.DatException;
import dat.api.DatReturn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The {@code FI_EP_MSG} entries of libfabric providers the kit has not passed on ({@code net}, {@code sockets} in
 * Debian's libfabric 1.17) are not IAs unless asked for, and asked for they do not crash the JVM.
 */
class OfiUnverifiedTest {

    @Test
    void netAndSocketsAreNotIasAndOpeningOneSaysWhyAndHowToAskForIt() {
        OfiProvider provider = new OfiProvider();
        assertTrue(provider.info().ias().stream().noneMatch(i -> i.iaName().startsWith("ofi-net-")
                || i.iaName().startsWith("ofi-sockets-")), "listed: " + provider.info().ias());
        for (String ia : List.of("ofi-net-lo", "ofi-sockets-lo")) {
            DatException e = assertThrows(DatException.class, () -> provider.open(ia, "", 16));
            assertSame(DatReturn.PROVIDER_NOT_FOUND, e.type());
            assertTrue(e.getMessage().contains("has not passed jDAT's conformance kit")
                    && e.getMessage().contains("-Ddat.ofi.unverified=true"), e.getMessage());
        }
    }

    /**
     * Regression: the free of a PSP whose request was answered read the passive endpoint's EQ wait set the way tcp
     * 1.17 builds it; on libfabric's {@code net} that {@code fi_control} crashed the JVM (SIGSEGV in libfabric).
     */
    @Test
    void aConnectionOverNetAskedForEndsWithoutACrash() throws Exception {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Ddat.ofi.unverified=true", "-cp", ChildJvm.classPath(),
                Child.class.getName());
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("connected and closed"), output);
    }

    /** The child: opens {@code ofi-net-lo}, connects two EPs through a PSP, frees the PSP, closes the IA. */
    static final class Child {

        private Child() {
        }

        public static void main(String[] args) {
            OfiIa ia = (OfiIa) new OfiProvider().open("ofi-net-lo", "", 16);
            try {
                TcpPair.connect(ia, ia.createPz(), ia.createEvd(64, null, DatEvdFlags.DTO));
                System.out.println("connected and closed");
            } finally {
                ia.close(DatCloseFlags.ABRUPT);
            }
        }
    }
}
