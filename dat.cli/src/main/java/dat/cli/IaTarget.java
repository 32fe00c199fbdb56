// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.registry.DatRegistry;
import dat.registry.IaEntry;
import dat.registry.ProviderEntry;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The one resolution of {@code --provider NAME} / {@code --ia NAME} for every command that opens an IA ({@code perf},
 * {@code tck}, {@code tck-peer}, {@code tck-fault}): an IA that does not exist or is unavailable is refused here, with
 * one message naming what exists, before anything runs against it.
 */
final class IaTarget {

    /** Provider used when neither {@code --provider} nor {@code --ia} is given. */
    static final String PROVIDER_DEFAULT = "loopback";

    private IaTarget() {
    }

    /**
     * @param registry the registry
     * @param providerName {@code --provider}, or {@code null}
     * @param iaName {@code --ia}, or {@code null}
     * @return the IA named, or the first available IA of the provider ({@value #PROVIDER_DEFAULT} when neither is
     *     given)
     * @throws CommandFailure when both are given, or the IA or provider is unknown or unavailable: the message
     *     names what exists, or the unavailable reason
     */
    static IaEntry resolve(DatRegistry registry, String providerName, String iaName) {
        if (providerName != null && iaName != null) {
            throw new CommandFailure("give --provider or --ia, not both");
        }
        return iaName != null ? byName(registry, iaName)
                : ofProvider(registry, providerName == null ? PROVIDER_DEFAULT : providerName);
    }

    private static IaEntry byName(DatRegistry registry, String name) {
        for (IaEntry ia : registry.ias()) {
            if (ia.name().equals(name)) {
                if (!ia.available()) {
                    throw new CommandFailure("IA " + Text.safe(name) + " (provider " + Text.safe(ia.providerName())
                            + ") is unavailable: " + Text.safe(ia.unavailableReason()));
                }
                return ia;
            }
        }
        throw new CommandFailure("unknown IA '" + Text.safe(name) + "'; " + listIas(registry.ias()));
    }

    private static IaEntry ofProvider(DatRegistry registry, String name) {
        ProviderEntry provider = registry.providers().stream().filter(p -> p.name().equals(name)).findFirst()
                .orElseThrow(() -> new CommandFailure("no provider named " + Text.safe(name) + " offers an IA; "
                        + listProviders(registry.providers())));
        if (!provider.available()) {
            throw new CommandFailure("provider " + Text.safe(name) + " is unavailable: "
                    + Text.safe(provider.unavailableReason()));
        }
        List<IaEntry> own = registry.ias().stream().filter(ia -> ia.providerName().equals(name)).toList();
        return own.stream().filter(IaEntry::available).findFirst()
                .orElseThrow(() -> new CommandFailure("provider " + Text.safe(name) + " has no available IA; "
                        + listIas(own)));
    }

    private static String listProviders(List<ProviderEntry> providers) {
        if (providers.isEmpty()) {
            return "no providers were found";
        }
        return "providers: " + providers.stream()
                .map(p -> Text.safe(p.name()) + (p.available() ? " (available)"
                        : " (unavailable: " + Text.safe(p.unavailableReason()) + ")"))
                .collect(Collectors.joining(", "));
    }

    private static String listIas(List<IaEntry> ias) {
        if (ias.isEmpty()) {
            return "no IAs are registered";
        }
        return "IAs: " + ias.stream()
                .map(ia -> Text.safe(ia.name()) + " (provider " + Text.safe(ia.providerName())
                        + (ia.available() ? ", available)" : ", unavailable: " + Text.safe(ia.unavailableReason())
                        + ")"))
                .collect(Collectors.joining(", "));
    }
}
