// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import dat.api.DatIa;
import dat.registry.DatRegistry;
import java.util.Objects;

/**
 * The verification {@link TckLauncher} runs: it opens the IA named by the configuration parameter
 * {@value TckContext#IA} through the provider registry, so any provider on the module or class path (or in a
 * {@code dat.conf}) can be verified without writing a test class; with {@value TckContext#PROVIDER} only that
 * provider is asked.
 */
public class RegistryVerification extends DatProviderVerification {

    private String iaName;
    private String providerName;

    /** Created by JUnit. */
    public RegistryVerification() {
    }

    @Override
    public void configure(TckContext context) {
        this.iaName = Objects.requireNonNull(context.iaName(),
                "configuration parameter " + TckContext.IA + " must name the IA to verify");
        this.providerName = context.providerName();
    }

    @Override
    public DatIa openIa() {
        DatRegistry.Builder registry = DatRegistry.builder().systemConfiguration();
        if (providerName != null) {
            registry.onlyProvider(providerName);
        }
        return registry.build().open(iaName);
    }
}
