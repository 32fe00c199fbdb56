// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.tck.DatProviderVerification;
import dat.tck.TckLauncher;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The kit's cross-node rules with the peer in a second JVM ({@link OfiPeerProcess}), so every connection crosses a
 * process boundary: on {@code ofi-tcp-lo} over libfabric's tcp provider, as between two hosts, and on
 * {@code ofi-shm-shm-rdm} as RDM associations over its shm provider (docs/ofi-rdm-protocol.md), what two JVMs of one
 * host use.
 */
class OfiCrossNodeTest {

    /**
     * One fabric: its IA, the kit's verification of it, where its peer listens, and how many cross-node rules run
     * (those needing a feature the IA's attributes deny are skipped).
     */
    record Fabric(String ia, Class<? extends DatProviderVerification> verification, long connQual, int rulesRun) {
        @Override
        public String toString() {
            return ia;
        }
    }

    static Stream<Fabric> fabrics() {
        return Stream.of(
                // Memory windows denied on both.
                new Fabric(OfiTcpVerification.IA, OfiTcpVerification.class, 7473, 10),
                new Fabric(OfiRdmShmVerification.IA, OfiRdmShmVerification.class, 7475, 10));
    }

    @ParameterizedTest
    @MethodSource("fabrics")
    void crossNodeRulesPassAgainstAPeerInAnotherProcess(Fabric fabric) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "--enable-native-access=ALL-UNNAMED", "-cp", ChildJvm.classPath(),
                OfiPeerProcess.class.getName(), Long.toString(fabric.connQual()), "300", fabric.ia()));
        Process peer = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(),
                    StandardCharsets.UTF_8));
            String first = out.readLine();
            assertTrue(first != null && first.startsWith("listening"), "the peer process said: " + first);
            Thread reader = Thread.ofPlatform().daemon().start(() -> out.lines().forEach(lines::add));
            TckLauncher.Result result = TckLauncher.run(TckLauncher.Options.verification(fabric.verification())
                    .only("*_crossNode*").peer("127.0.0.1:" + fabric.connQual()), null);
            assertTrue(peer.waitFor(120, TimeUnit.SECONDS), "the peer process did not end: " + lines);
            reader.join(10_000);
            System.out.printf("%s cross-node TCK (peer in pid %d): passed=%d failed=%d skipped=%d%n", fabric.ia(),
                    peer.pid(), result.passed(), result.failed(), result.skipped());
            lines.forEach(l -> System.out.println("  peer: " + l));
            assertEquals(List.of(), result.failures(), "failed rules");
            assertEquals(fabric.rulesRun(), result.passed(), "skips: " + result.skips());
            result.skips().values().forEach(why -> assertTrue(why.contains("denies the feature"), why));
            assertEquals(0, peer.exitValue(), "the peer process: " + lines);
        } finally {
            peer.destroyForcibly();
        }
    }
}
