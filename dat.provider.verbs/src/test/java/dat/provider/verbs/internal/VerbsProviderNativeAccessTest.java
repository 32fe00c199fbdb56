// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.LibraryUnavailableException;
import dat.spi.DatProvider;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider in child JVMs, for the cases one JVM cannot show. Started without
 * {@code --enable-native-access=dat.provider.verbs}: the provider is unavailable with the exact hint, and it
 * calls no restricted method, so the JDK prints no "restricted method" warning; with
 * {@code --illegal-native-access=deny} such a call would even throw, and the result is the same. Started with
 * native access but pointed at a libibverbs or librdmacm that does not exist: unavailable with the install hint.
 */
class VerbsProviderNativeAccessTest {

    private static final long CHILD_TIMEOUT_SECONDS = 60;

    @TempDir
    Path work;

    @Test
    void withoutNativeAccessTheProviderSaysHowToEnableItAndWarnsNothing() throws Exception {
        String output = child(List.of());
        assertChildSaysNativeAccess(output);
    }

    @Test
    void evenWhenRestrictedCallsWouldThrowNothingIsCalled() throws Exception {
        String output = child(List.of("--illegal-native-access=deny"));
        assertChildSaysNativeAccess(output);
    }

    @Test
    void aMissingLibibverbsIsReportedWithTheInstallHint() throws Exception {
        String output = child(List.of("--enable-native-access=dat.provider.verbs",
                "-D" + VerbsConfig.LIBIBVERBS_PROPERTY + "=libibverbs-jdat-missing.so.1"));
        assertClean(output, "reason=libibverbs-jdat-missing.so.1 not found: install rdma-core "
                + "(apt install libibverbs1 librdmacm1 ibverbs-providers)");
    }

    @Test
    void aMissingLibrdmacmIsReportedWithTheInstallHint() throws Exception {
        String output = child(List.of("--enable-native-access=dat.provider.verbs",
                "-D" + VerbsConfig.LIBRDMACM_PROPERTY + "=librdmacm-jdat-missing.so.1"));
        // libibverbs is checked first: on a machine without it, that is the library reported.
        String missing = libibverbsLoadsHere() ? "librdmacm-jdat-missing.so.1" : "libibverbs.so.1";
        assertClean(output, "reason=" + missing + " not found: install rdma-core "
                + "(apt install libibverbs1 librdmacm1 ibverbs-providers)");
    }

    private static boolean libibverbsLoadsHere() {
        try {
            LibIbverbs.load();
            return true;
        } catch (LibraryUnavailableException e) {
            return false;
        }
    }

    private static void assertClean(String output, String reasonLine) {
        assertTrue(output.lines().anyMatch("available=false"::equals), output);
        assertTrue(output.lines().anyMatch(reasonLine::equals), output);
        assertFalse(output.contains("WARNING"), output);
        assertEquals(3, output.lines().count(), output);
    }

    private static void assertChildSaysNativeAccess(String output) {
        assertTrue(output.lines().anyMatch("module=dat.provider.verbs"::equals), output);
        assertTrue(output.lines().anyMatch("available=false"::equals), output);
        assertTrue(output.lines().anyMatch(("reason=" + VerbsConfig.NATIVE_ACCESS_REASON)::equals), output);
        assertEquals("native access is not enabled: run with --enable-native-access=dat.provider.verbs",
                VerbsConfig.NATIVE_ACCESS_REASON);
        assertFalse(output.contains("WARNING"), output);
        assertFalse(output.contains("restricted method"), output);
        assertEquals(3, output.lines().count(), output);
    }

    private String child(List<String> options) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String modulePath = String.join(File.pathSeparator, location(DatProvider.class),
                location(VerbsProvider.class));
        List<String> command = new ArrayList<>(List.of(java, "-Xshare:auto"));
        command.addAll(options);
        command.addAll(List.of("--module-path", modulePath,
                "--patch-module", "dat.provider.verbs=" + location(NativeAccessProbe.class),
                "--add-modules", "dat.provider.verbs",
                "-m", "dat.provider.verbs/" + NativeAccessProbe.class.getName()));
        Path output = work.resolve("child.txt");
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        boolean finished = child.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            // Bounded too: a child stuck in the kernel must not hang the build after its own timeout.
            assertTrue(child.destroyForcibly().waitFor(10, TimeUnit.SECONDS), "the child outlived SIGKILL by 10 s");
        }
        String text = Files.readString(output);
        String context = "command: " + String.join(" ", command) + "\noutput:\n" + text;
        assertTrue(finished, () -> "child JVM did not finish within " + CHILD_TIMEOUT_SECONDS + " s\n" + context);
        assertEquals(0, child.exitValue(), context);
        return text;
    }

    private static String location(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
