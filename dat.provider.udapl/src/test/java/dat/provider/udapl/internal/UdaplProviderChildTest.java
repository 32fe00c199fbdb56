// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dat.spi.DatProvider;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bridge in child JVMs, for what one JVM cannot show: libdat2 reads {@code DAT_OVERRIDE} once per process, and
 * native access is fixed at start. Without native access the provider says how to enable it and calls no restricted
 * method; with an empty registry the reason names the file and what to add; with entries that make OFA's providers
 * log "open_hca: ... failed" by default, nothing but the probe's three lines reaches standard output.
 */
class UdaplProviderChildTest {

    private static final long CHILD_TIMEOUT_SECONDS = 60;
    private static final String LIBDAT = "/usr/lib/x86_64-linux-gnu/libdat2.so.2";

    @TempDir
    Path work;

    @Test
    void withoutNativeAccessTheReasonSaysHowToEnableItAndNothingIsCalled() throws Exception {
        String output = child(List.of("--illegal-native-access=deny"), Map.of());
        assertTrue(output.lines().anyMatch(("reason=" + UdaplConfig.NATIVE_ACCESS_REASON)::equals), output);
        assertEquals("native access is not enabled: run with --enable-native-access=dat.provider.udapl",
                UdaplConfig.NATIVE_ACCESS_REASON);
        assertFalse(output.contains("restricted method"), output);
        assertEquals(3, output.lines().count(), output);
    }

    @Test
    void anEmptyRegistryIsTheReasonWithTheLineToAdd() throws Exception {
        assumeTrue(Files.exists(Path.of(LIBDAT)) || "true".equals(System.getenv("CI")), "install libdapl2 (apt)");
        Path empty = Files.writeString(work.resolve("dat.conf"), "# nothing\n");
        String output = child(List.of("--enable-native-access=dat.provider.udapl"),
                Map.of("DAT_OVERRIDE", empty.toString()));
        assertTrue(output.lines().anyMatch(("reason=libdat2's registry " + empty + " (DAT_OVERRIDE) names no IA (a"
                + " missing or unreadable file reads as empty); add a line such as: ofa-v2-cma-roe u2.0 nonthreadsafe"
                + " default libdaplofa.so.2 dapl.2.0 \"<address or netdev> 0\" \"\", or point DAT_OVERRIDE at such a"
                + " file")::equals), output);
        assertEquals(3, output.lines().count(), output);
    }

    @Test
    void theCProvidersLogStaysOffStandardOutput() throws Exception {
        assumeTrue(Files.exists(Path.of(LIBDAT)) || "true".equals(System.getenv("CI")), "install libdapl2 (apt)");
        // 80 entries OFA's socket-CM provider cannot open: about 6 KiB of its log, more than stdio buffers, so it
        // reaches the file during the run and not only (if at all) when the JVM exits.
        StringBuilder conf = new StringBuilder();
        for (int i = 0; i < 80; i++) {
            conf.append("ofa-v2-jdat-nodev-").append(i)
                    .append(" u2.0 nonthreadsafe default libdaploscm.so.2 dapl.2.0 \"jdat_nodev0 1\" \"\"\n");
        }
        Path file = Files.writeString(work.resolve("many.conf"), conf);
        String quiet = child(List.of("--enable-native-access=dat.provider.udapl"),
                Map.of("DAT_OVERRIDE", file.toString()));
        assertTrue(quiet.lines().anyMatch("available=false"::equals), quiet);
        assertEquals(3, quiet.lines().count(), quiet);
        // The control: asked for its errors and warnings, OFA's provider prints them there, so the count can fail.
        String loud = child(List.of("--enable-native-access=dat.provider.udapl"),
                Map.of("DAT_OVERRIDE", file.toString(), "DAPL_DBG_TYPE", "0x3"));
        assertTrue(loud.lines().count() > 3, loud);
    }

    /**
     * Discovery links only the functions it calls: a downcall stub is classes the JVM spins at run time, outside the
     * runtime image's AOT cache, and linking all of libdat2's at load cost every {@code dat info} its time.
     */
    @Test
    void discoveryLinksOnlyTheFunctionsItCalls() throws Exception {
        assumeTrue(Files.exists(Path.of(LIBDAT)) || "true".equals(System.getenv("CI")), "install libdapl2 (apt)");
        Path file = Files.writeString(work.resolve("one.conf"),
                "ofa-v2-jdat-nodev u2.0 nonthreadsafe default libdaploscm.so.2 dapl.2.0 \"jdat_nodev0 1\" \"\"\n");
        String output = child(List.of("--enable-native-access=dat.provider.udapl"),
                Map.of("DAT_OVERRIDE", file.toString()), "linked");
        String line = output.lines().filter(l -> l.startsWith("linked=")).findFirst().orElseThrow();
        Set<String> linked = Set.of(line.substring("linked=".length()).split(",", -1));
        // The entry was tried, so the record works: an empty set would prove nothing.
        assertTrue(linked.contains("dat_ia_openv"), output);
        Set<String> discovery = Set.of("dat_registry_list_providers", "dat_ia_openv", "dat_ia_query", "dat_ia_close",
                "dat_strerror");
        assertTrue(discovery.containsAll(linked), "discovery linked " + linked + ", only " + discovery + " expected");
    }

    private String child(List<String> options, Map<String, String> env, String... args) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String modulePath = String.join(File.pathSeparator, location(DatProvider.class),
                location(UdaplProvider.class));
        List<String> command = new ArrayList<>(List.of(java, "-Xshare:auto"));
        command.addAll(options);
        command.addAll(List.of("--module-path", modulePath,
                "--patch-module", "dat.provider.udapl=" + location(UdaplProbe.class),
                "--add-modules", "dat.provider.udapl",
                "-m", "dat.provider.udapl/" + UdaplProbe.class.getName()));
        command.addAll(List.of(args));
        Path output = work.resolve("child-" + System.nanoTime() + ".txt");
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(output.toFile())
                .redirectError(work.resolve("child-stderr.txt").toFile());
        pb.environment().remove("DAT_OVERRIDE");
        pb.environment().remove("DAPL_DBG_TYPE");
        pb.environment().putAll(env);
        Process child = pb.start();
        boolean finished = child.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            assertTrue(child.destroyForcibly().waitFor(10, TimeUnit.SECONDS), "the child outlived SIGKILL by 10 s");
        }
        String text = Files.readString(output);
        String context = "command: " + String.join(" ", command) + "\nstdout:\n" + text + "\nstderr:\n"
                + Files.readString(work.resolve("child-stderr.txt"));
        assertTrue(finished, () -> "child JVM did not finish within " + CHILD_TIMEOUT_SECONDS + " s\n" + context);
        assertEquals(0, child.exitValue(), context);
        return text;
    }

    private static String location(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
