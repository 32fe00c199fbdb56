// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Closeable;
import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;

/** The native-access hint, worded for the module path, the class path and an OSGi framework. */
class NativeAccessTest {

    @Test
    void eachPlaceGetsItsFix() {
        assertEquals("native access is not enabled: run with --enable-native-access=dat.provider.x",
                NativeAccess.reason("dat.provider.x", "x", true, false));
        assertEquals("native access is not enabled: run with --enable-native-access=ALL-UNNAMED (the x provider is on"
                + " the class path; on the module path use --enable-native-access=dat.provider.x)",
                NativeAccess.reason("dat.provider.x", "x", false, false));
        assertTrue(NativeAccess.reason("dat.provider.x", "x", false, true).endsWith("the x provider is an OSGi bundle,"
                + " whose classes the framework loads into an unnamed module; start the framework's JVM with"
                + " --enable-native-access=ALL-UNNAMED"));
    }

    @Test
    void bundleLoadersAreFoundByTheirInterfaceName() {
        assertTrue(NativeAccess.hasSupertype(URLClassLoader.class, Closeable.class.getName()));
        assertTrue(NativeAccess.hasSupertype(new URLClassLoader(new URL[0]) { }.getClass(),
                ClassLoader.class.getName()));
        assertFalse(NativeAccess.hasSupertype(URLClassLoader.class, NativeAccess.BUNDLE_REFERENCE));
        assertFalse(NativeAccess.isBundleLoader(NativeAccessTest.class.getClassLoader()));
        assertFalse(NativeAccess.isBundleLoader(null));
    }
}
