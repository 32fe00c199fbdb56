// SPDX-License-Identifier: Apache-2.0
package dat.registry;

/** Where the registry learnt of a provider or an IA. */
public enum DiscoverySource {
    /** Named by the {@code dat.providers} property or the {@code DAT_PROVIDERS} variable, in that order. */
    PROPERTY("property"),
    /** Found by {@link java.util.ServiceLoader} on the module path, the class path or through OSGi. */
    SERVICE_LOADER("service-loader"),
    /** Found in a jar on the provider path ({@code dat.provider.path}, {@code DAT_PROVIDER_PATH}). */
    PROVIDER_PATH("provider-path"),
    /** Configured by a static registry file in {@code dat.conf} format. */
    DAT_CONF("dat.conf"),
    /** Handed to {@link DatRegistry.Builder#providers}, as tests and embedders do. */
    EXPLICIT("explicit");

    private final String label;

    DiscoverySource(String label) {
        this.label = label;
    }

    /**
     * @return the short label tables print: {@code property}, {@code service-loader}, {@code provider-path},
     *     {@code dat.conf}
     */
    @Override
    public String toString() {
        return label;
    }
}
