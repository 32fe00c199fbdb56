// SPDX-License-Identifier: Apache-2.0
package dat.osgi.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * jDAT under OSGi, in Apache Felix and in Eclipse Equinox, each with Apache Aries SPI Fly (the dynamic bundle,
 * with ASM 9.8) as the Service Loader Mediator: every jDAT bundle resolves and starts; a consumer bundle finds
 * the providers through {@code DatRegistry.load()}, selects an IA by attribute and moves a message over loopback;
 * the verbs and ofi bundles start and report themselves unavailable (no native access for bundles); a provider
 * bundle installed after start is found by the next {@code load()} and by the OSGi-service (whiteboard) path, and is
 * gone from both once uninstalled.
 */
class OsgiIT {

    private static final long TIMEOUT_SECONDS = 120;

    @ParameterizedTest
    @ValueSource(strings = {"org.apache.felix.framework.jar", "org.eclipse.osgi.jar"})
    void jdatBundlesWorkUnderTheServiceLoaderMediator(String frameworkJar) throws Exception {
        Path frameworks = Path.of(System.getProperty("osgi.it.frameworks"));
        Path work = Files.createDirectories(Path.of(System.getProperty("osgi.it.work")));
        Path storage = work.resolve(frameworkJar.replace(".jar", "-storage"));
        Path output = work.resolve(frameworkJar.replace(".jar", "-output.txt"));
        String classPath = frameworks.resolve(frameworkJar) + File.pathSeparator
                + Path.of(OsgiLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> command = List.of(ProcessHandle.current().info().command().orElseThrow(), "-cp", classPath,
                OsgiLauncher.class.getName(), storage.toString(), System.getProperty("osgi.it.bundles"),
                System.getProperty("osgi.it.consumer"), frameworks.resolve("dat-provider-example.jar").toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                .start();
        boolean finished = process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            // Bounded too: a child stuck in the kernel must not hang the build after its own timeout.
            assertTrue(process.destroyForcibly().waitFor(10, TimeUnit.SECONDS), "the child outlived SIGKILL by 10 s");
        }
        String out = Files.readString(output, StandardCharsets.UTF_8);
        String context = "command: " + String.join(" ", command) + "\noutput:\n" + out;
        assertTrue(finished, "the framework did not finish within " + TIMEOUT_SECONDS + " s\n" + context);
        assertEquals(0, process.exitValue(), context);
        assertTrue(!out.contains("FAIL") && !out.contains("UNRESOLVED"), context);
        for (String bundle : List.of("dat.api", "dat.registry", "dat.provider.loopback", "dat.provider.verbs",
                "dat.provider.ofi", "dat.tck", "dat.cli", "dat.osgi.consumer")) {
            assertTrue(out.lines().anyMatch(l -> l.startsWith("active: " + bundle + " ")), bundle + "\n" + context);
        }
        String before = line(out, "before: mediator providers: ", context);
        assertTrue(before.contains("loopback=available") && before.contains("verbs=unavailable")
                && before.contains("ofi=unavailable") && !before.contains("example"), context);
        assertTrue(line(out, "before: mediator data: ", context)
                .contains("received 'hello from an OSGi consumer' (SUCCESS)"), context);
        assertTrue(line(out, "installed: mediator providers: ", context).contains("example=available"), context);
        assertTrue(line(out, "installed: whiteboard providers: ", context).contains("example=available"), context);
        assertTrue(!line(out, "uninstalled: mediator providers: ", context).contains("example"), context);
        assertTrue(!line(out, "uninstalled: whiteboard providers: ", context).contains("example"), context);
        assertTrue(out.contains("stopped: true"), context);
    }

    private static String line(String out, String prefix, String context) {
        return out.lines().filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no line '" + prefix + "'\n" + context));
    }
}
