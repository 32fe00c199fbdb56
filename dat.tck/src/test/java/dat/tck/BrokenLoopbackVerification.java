// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import dat.api.DatIa;
import dat.registry.DatRegistry;
import java.util.List;
import java.util.stream.Stream;

/** Loopback with the fault (or legal variation) named by the configuration parameter {@value #FAULT}. */
public class BrokenLoopbackVerification extends DatProviderVerification {

    /** Configuration parameter: the name of the {@link BrokenProviders.Broken} to apply. */
    static final String FAULT = "dat.tck.selftest.fault";

    private BrokenProviders.Broken broken;

    /** Created by JUnit. */
    public BrokenLoopbackVerification() {
    }

    @Override
    public void configure(TckContext context) {
        String name = context.parameter(FAULT).orElseThrow();
        broken = Stream.of(BrokenProviders.all(), CampaignBrokenProviders.legal(),
                        CampaignBrokenProviders.transportChoices(), LimitedProvidersTest.all())
                .flatMap(List::stream)
                .filter(b -> b.name().equals(name)).findFirst().orElseThrow();
    }

    @Override
    public DatIa openIa() {
        return Breaker.wrap(DatRegistry.load().open("loopback0"), broken.fault());
    }
}
