// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Closeable;
import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;

/** Which native-access hint the provider gives: the module path, a bundle of an OSGi framework, the class path. */
class VerbsConfigTest {

    @Test
    void aNamedModuleIsToldToEnableItsOwnName() {
        assertEquals(VerbsConfig.NATIVE_ACCESS_REASON, VerbsConfig.nativeAccessReason(true, false));
        assertTrue(VerbsConfig.NATIVE_ACCESS_REASON.contains("--enable-native-access=dat.provider.verbs"));
    }

    @Test
    void aBundleIsCalledABundleAndToldTheFlagForTheFrameworksJvm() {
        String reason = VerbsConfig.nativeAccessReason(false, true);
        assertTrue(reason.contains("OSGi bundle"), reason);
        assertTrue(reason.contains("--enable-native-access=ALL-UNNAMED"), reason);
        assertTrue(reason.contains("framework"), reason);
        assertFalse(reason.contains("class path"), reason);
    }

    @Test
    void theClassPathKeepsItsWording() {
        String reason = VerbsConfig.nativeAccessReason(false, false);
        assertEquals(VerbsConfig.NATIVE_ACCESS_UNNAMED_REASON, reason);
        assertTrue(reason.contains("is on the class path"), reason);
    }

    @Test
    void aBundleLoaderIsRecognisedByTheOsgiInterfaceItImplementsWithoutOsgiOnThePath() {
        // Felix's and Equinox's bundle class loaders implement org.osgi.framework.BundleReference; the check looks
        // for that name through superclasses and superinterfaces, the same walk shown here on JDK types.
        assertTrue(VerbsConfig.hasSupertype(URLClassLoader.class, Closeable.class.getName()));
        assertTrue(VerbsConfig.hasSupertype(new URLClassLoader(new URL[0]) { }.getClass(),
                AutoCloseable.class.getName()));
        assertFalse(VerbsConfig.hasSupertype(URLClassLoader.class, VerbsConfig.BUNDLE_REFERENCE));
        assertFalse(VerbsConfig.isBundleLoader(VerbsConfigTest.class.getClassLoader()));
        assertFalse(VerbsConfig.isBundleLoader(null));
    }
}
