// SPDX-License-Identifier: Apache-2.0
package dat.spi;

/**
 * The reason a provider bound with {@code java.lang.foreign} gives when its module may not call restricted methods,
 * worded for where it was loaded from: the module path (name the module), the class path (ALL-UNNAMED), or an OSGi
 * framework (whose bundles live in unnamed modules, so only ALL-UNNAMED on the framework's JVM helps). Shared by the
 * verbs and ofi providers, so every native provider says it the same way.
 */
public final class NativeAccess {

    /** The interface every OSGi framework's bundle class loader implements, named so no OSGi jar is needed. */
    public static final String BUNDLE_REFERENCE = "org.osgi.framework.BundleReference";

    private NativeAccess() {
    }

    /**
     * {@return the hint for a provider's module, as loaded}
     *
     * @param module the provider's module ({@code Provider.class.getModule()})
     * @param moduleName the name {@code --enable-native-access} must give on the module path
     * @param providerName the provider's name, for the message
     */
    public static String reason(Module module, String moduleName, String providerName) {
        return reason(moduleName, providerName, module.isNamed(), isBundleLoader(module.getClassLoader()));
    }

    /**
     * {@return the hint: the module's own name, the flag for a bundle's framework, or the class path's}
     *
     * @param moduleName the name {@code --enable-native-access} must give on the module path
     * @param providerName the provider's name, for the message
     * @param namedModule whether the provider is in a named module (the module path, a module layer)
     * @param bundle whether an OSGi framework loaded it
     */
    public static String reason(String moduleName, String providerName, boolean namedModule, boolean bundle) {
        if (namedModule) {
            return "native access is not enabled: run with --enable-native-access=" + moduleName;
        }
        if (bundle) {
            return "native access is not enabled: the " + providerName + " provider is an OSGi bundle, whose classes"
                    + " the framework loads into an unnamed module; start the framework's JVM with"
                    + " --enable-native-access=ALL-UNNAMED";
        }
        return "native access is not enabled: run with --enable-native-access=ALL-UNNAMED (the " + providerName
                + " provider is on the class path; on the module path use --enable-native-access=" + moduleName + ")";
    }

    /**
     * {@return whether a class loader is an OSGi bundle's: its class implements {@value #BUNDLE_REFERENCE}, as Felix's
     * and Equinox's do}
     *
     * @param loader the loader, {@code null} for the boot loader
     */
    public static boolean isBundleLoader(ClassLoader loader) {
        return loader != null && hasSupertype(loader.getClass(), BUNDLE_REFERENCE);
    }

    /**
     * {@return whether a type is, extends or implements a type of that name, looked up by name only}
     *
     * @param type the type
     * @param name the binary name of the supertype
     */
    public static boolean hasSupertype(Class<?> type, String name) {
        if (type == null) {
            return false;
        }
        if (type.getName().equals(name) || hasSupertype(type.getSuperclass(), name)) {
            return true;
        }
        for (Class<?> implemented : type.getInterfaces()) {
            if (hasSupertype(implemented, name)) {
                return true;
            }
        }
        return false;
    }
}
