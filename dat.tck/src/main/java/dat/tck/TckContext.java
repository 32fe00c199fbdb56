// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import dat.tck.rules.TckFixture;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Settings of one TCK run, read from JUnit configuration parameters (set by {@link TckLauncher}, or by a vendor
 * in {@code junit-platform.properties}).
 *
 * @param parameters looks up a configuration parameter by name
 */
public record TckContext(Function<String, Optional<String>> parameters) {

    /** Configuration parameter for strict mode ({@code true}/{@code false}, default false). */
    public static final String STRICT = "dat.tck.strict";
    /** Configuration parameter naming the IA {@link RegistryVerification} opens. */
    public static final String IA = "dat.tck.ia";
    /** Configuration parameter: how long the kit waits for an expected event, in milliseconds (default 10000). */
    public static final String EVENT_TIMEOUT_MS = "dat.tck.event.timeout.ms";
    /**
     * Configuration parameter: where a {@link TckPeer} listens on another node, {@code HOST:CONN_QUAL}; the
     * cross-node rules run only when it is set.
     */
    public static final String PEER = "dat.tck.peer";

    /** Configuration parameter: the random campaign's seed, decimal or {@code 0x} hex (default: a fresh one). */
    public static final String CAMPAIGN_SEED = "dat.tck.campaign.seed";
    /** Configuration parameter: at most this many campaign steps (default: no limit but the time). */
    public static final String CAMPAIGN_STEPS = "dat.tck.campaign.steps";
    /** Configuration parameter: at most this many seconds of campaign (default 10; 0 skips it). */
    public static final String CAMPAIGN_SECONDS = "dat.tck.campaign.seconds";
    /** Configuration parameter: seconds of the concurrent campaign (default 5; 0 skips it). */
    public static final String CAMPAIGN_CONCURRENT_SECONDS = "dat.tck.campaign.concurrent.seconds";
    /** Configuration parameter: how long a failing sequence may be shrunk, in seconds (default 60). */
    public static final String CAMPAIGN_SHRINK_SECONDS = "dat.tck.campaign.shrink.seconds";

    /** Checks that the lookup is present. */
    public TckContext {
        Objects.requireNonNull(parameters, "parameters");
    }

    /**
     * {@return whether a required rule that cannot run because the provider denies a feature it needs fails instead of
     * being skipped}
     */
    public boolean strict() {
        return parameters.apply(STRICT).map(Boolean::parseBoolean).orElse(false);
    }

    /** {@return the IA to verify through the registry, or {@code null}} */
    public String iaName() {
        return parameters.apply(IA).orElse(null);
    }

    /** {@return how long the kit waits for an event it expects} */
    public long eventTimeoutMillis() {
        return parameters.apply(EVENT_TIMEOUT_MS).map(Long::parseLong).orElse(TckFixture.EVENT_TIMEOUT_MILLIS_DEFAULT);
    }

    /**
     * {@return the remote peer the cross-node rules talk to, if {@value #PEER} is set}
     *
     * @throws IllegalArgumentException when {@value #PEER} is not {@code HOST:CONN_QUAL}
     */
    public Optional<PeerAddress> peer() {
        return parameters.apply(PEER).filter(text -> !text.isBlank()).map(text -> {
            try {
                return PeerAddress.parse(text.strip());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(PEER + ": " + e.getMessage(), e);
            }
        });
    }

    /** {@return the campaign's seed, if one is given} */
    public Optional<Long> campaignSeed() {
        return parameters.apply(CAMPAIGN_SEED).filter(text -> !text.isBlank()).map(TckContext::parseSeed);
    }

    /**
     * {@return the seed}
     *
     * @param text a seed as printed by a campaign ({@code 0x...}) or in decimal
     * @throws IllegalArgumentException when it is neither
     */
    public static long parseSeed(String text) {
        String t = text.strip();
        try {
            return t.startsWith("0x") || t.startsWith("0X") ? Long.parseUnsignedLong(t.substring(2), 16)
                    : Long.parseLong(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a seed (decimal or 0x hex): " + text, e);
        }
    }

    /** {@return at most how many campaign steps run} */
    public long campaignSteps() {
        return parameters.apply(CAMPAIGN_STEPS).map(Long::parseLong).orElse(Long.MAX_VALUE);
    }

    /** {@return at most how many seconds the campaign runs; 0 skips it} */
    public double campaignSeconds() {
        return parameters.apply(CAMPAIGN_SECONDS).map(Double::parseDouble).orElse(10.0);
    }

    /** {@return how long the concurrent campaign runs, in seconds; 0 skips it} */
    public double campaignConcurrentSeconds() {
        return parameters.apply(CAMPAIGN_CONCURRENT_SECONDS).map(Double::parseDouble).orElse(5.0);
    }

    /** {@return how long a failure may be shrunk, in seconds} */
    public double campaignShrinkSeconds() {
        return parameters.apply(CAMPAIGN_SHRINK_SECONDS).map(Double::parseDouble).orElse(60.0);
    }

    /**
     * {@return the value of the configuration parameter {@code name}}
     *
     * @param name any configuration parameter, for example one a vendor's verification reads
     */
    public Optional<String> parameter(String name) {
        return parameters.apply(name);
    }
}
