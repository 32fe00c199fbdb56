// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.registry.DatRegistry;
import dat.registry.IaEntry;
import dat.registry.IaResolutionException;
import picocli.CommandLine.Option;

/**
 * {@code --provider NAME} / {@code --ia NAME}, declared once as a picocli mixin for every command that opens an IA
 * ({@code perf}, {@code perf serve}, {@code tck}, {@code tck-peer}, {@code tck-fault victim|survivor}) and resolved
 * once, by {@link DatRegistry#resolve}: an IA that does not exist or is unavailable is refused before anything runs
 * against it, with one message naming what exists or the unavailable reason.
 */
final class IaTarget {

    /** Provider used when neither {@code --provider} nor {@code --ia} is given. */
    static final String PROVIDER_DEFAULT = "loopback";

    @Option(names = "--provider", paramLabel = "NAME",
            description = "Use the first available IA of provider NAME (default: " + PROVIDER_DEFAULT + ").")
    String provider;

    @Option(names = "--ia", paramLabel = "NAME", description = "Use the IA NAME (instead of --provider).")
    String ia;

    /** Created by picocli. */
    IaTarget() {
    }

    /**
     * Refuses both options at once. Checked by hand rather than with an exclusive argument group so that every
     * command words it the same, on one line, in the order of its own checks.
     *
     * @throws CommandFailure when both are given
     */
    void check() {
        checkNotBoth(provider, ia);
    }

    private static void checkNotBoth(String providerName, String iaName) {
        if (providerName != null && iaName != null) {
            throw new CommandFailure("give --provider or --ia, not both");
        }
    }

    /**
     * {@return the registry to resolve this target in}
     */
    DatRegistry registry() {
        return registry(provider, ia);
    }

    /**
     * {@return the registry to resolve a target in: with {@code --provider}, or neither option (the default
     * provider), only that provider is asked for its IAs ({@link DatRegistry.Builder#onlyProvider}), so a command
     * never waits for another provider's native library to load; with {@code --ia} every provider is, since any may
     * offer the name}
     *
     * @param providerName {@code --provider}, or {@code null}
     * @param iaName {@code --ia}, or {@code null}
     */
    static DatRegistry registry(String providerName, String iaName) {
        DatRegistry.Builder builder = DatRegistry.builder().systemConfiguration();
        if (iaName == null) {
            builder.onlyProvider(providerName == null ? PROVIDER_DEFAULT : providerName);
        }
        return builder.build();
    }

    /**
     * @param registry the registry
     * @return the IA named, or the first available IA of the provider ({@value #PROVIDER_DEFAULT} when neither
     *     option is given)
     * @throws CommandFailure when both are given, or the IA or provider is unknown or unavailable: the message
     *     names what exists, or the unavailable reason
     */
    IaEntry resolve(DatRegistry registry) {
        return resolve(registry, provider, ia);
    }

    /**
     * {@link #resolve(DatRegistry)} for given option values.
     *
     * @param registry the registry
     * @param providerName {@code --provider}, or {@code null}
     * @param iaName {@code --ia}, or {@code null}
     * @return the IA
     * @throws CommandFailure as {@link #resolve(DatRegistry)}
     */
    static IaEntry resolve(DatRegistry registry, String providerName, String iaName) {
        checkNotBoth(providerName, iaName);
        try {
            return registry.resolve(iaName == null && providerName == null ? PROVIDER_DEFAULT : providerName, iaName);
        } catch (IaResolutionException e) {
            throw new CommandFailure(e.reason(), e);
        }
    }
}
