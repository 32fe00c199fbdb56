// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What the tests that run a peer or victim in a second JVM give it. */
public final class ChildJvm {

    private ChildJvm() {
    }

    /**
     * {@return a child JVM running {@code main} with {@code args}, native access on, its stderr in its stdout}
     *
     * @param main the class whose {@code main} the child runs
     * @param args its arguments
     * @throws IOException when the JVM cannot start
     */
    public static Process start(Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "--enable-native-access=ALL-UNNAMED", "-cp", classPath(), main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** {@return the test JVM's module path and class path, all on the child's class path} */
    public static String classPath() {
        List<String> parts = new ArrayList<>();
        for (String p : new String[] {System.getProperty("jdk.module.path"), System.getProperty("java.class.path")}) {
            if (p != null && !p.isEmpty()) {
                parts.add(p);
            }
        }
        return String.join(File.pathSeparator, parts);
    }
}
