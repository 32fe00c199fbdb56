// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/** What the tests that run a peer or victim in a second JVM give it. */
public final class ChildJvm {

    private ChildJvm() {
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
