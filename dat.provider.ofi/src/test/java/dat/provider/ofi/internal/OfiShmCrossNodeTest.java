// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.tck.TckLauncher;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The kit's cross-node rules against {@code ofi-shm-shm-rdm} with the peer in a second JVM ({@link OfiPeerProcess}),
 * so every connection is an RDM association between two processes over libfabric's shm provider
 * (docs/ofi-rdm-protocol.md): what two JVMs of one host use.
 */
class OfiShmCrossNodeTest {

    /** The cross-node rules that need no SRQ and no memory window, which the attributes deny. */
    private static final int CROSS_NODE_RULES_RUN = 9;
    private static final long CONN_QUAL = 7475;

    @Test
    void crossNodeRulesPassAgainstAPeerInAnotherProcess() throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "--enable-native-access=ALL-UNNAMED", "-cp", ChildJvm.classPath(),
                OfiPeerProcess.class.getName(), Long.toString(CONN_QUAL), "300", OfiRdmShmVerification.IA));
        Process peer = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(),
                    StandardCharsets.UTF_8));
            String first = out.readLine();
            assertTrue(first != null && first.startsWith("listening"), "the peer process said: " + first);
            Thread reader = Thread.ofPlatform().daemon().start(() -> out.lines().forEach(lines::add));
            TckLauncher.Result result = TckLauncher.run(TckLauncher.Options.verification(OfiRdmShmVerification.class)
                    .only("*_crossNode*").peer("127.0.0.1:" + CONN_QUAL), null);
            assertTrue(peer.waitFor(120, TimeUnit.SECONDS), "the peer process did not end: " + lines);
            reader.join(10_000);
            System.out.printf("ofi-shm-shm-rdm cross-node TCK (peer in pid %d): passed=%d failed=%d skipped=%d%n",
                    peer.pid(), result.passed(), result.failed(), result.skipped());
            lines.forEach(l -> System.out.println("  peer: " + l));
            assertEquals(List.of(), result.failures(), "failed rules");
            assertEquals(CROSS_NODE_RULES_RUN, result.passed(), "skips: " + result.skips());
            result.skips().values().forEach(why -> assertTrue(why.contains("denies the feature"), why));
            assertEquals(0, peer.exitValue(), "the peer process: " + lines);
        } finally {
            peer.destroyForcibly();
        }
    }

}
