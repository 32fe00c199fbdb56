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
 * @param run what the rules of one run learn and share (the same object for every rule of a run)
 */
public record TckContext(Function<String, Optional<String>> parameters, RunState run) {

    /**
     * What one run of the kit has learnt that later rules must know: today, that the provider's open did not return,
     * so the rules after it fail at once with that reason instead of each waiting again.
     */
    public static final class RunState {
        private volatile String openHung;

        /** An empty state, for a new run. */
        public RunState() {
        }

        /** {@return why opening the IA is no longer tried in this run, or {@code null} while it is} */
        public String openHung() {
            return openHung;
        }

        /**
         * Records that an open did not return.
         *
         * @param why what waited, for how long
         */
        public void openHung(String why) {
            this.openHung = why;
        }
    }

    /**
     * Settings of a run whose rules share nothing (a fresh {@link RunState}).
     *
     * @param parameters looks up a configuration parameter by name
     */
    public TckContext(Function<String, Optional<String>> parameters) {
        this(parameters, new RunState());
    }

    /** Configuration parameter for strict mode ({@code true}/{@code false}, default false). */
    public static final String STRICT = "dat.tck.strict";
    /** Configuration parameter naming the IA {@link RegistryVerification} opens. */
    public static final String IA = "dat.tck.ia";
    /**
     * Configuration parameter naming the provider of {@value #IA}, when known: {@link RegistryVerification} then asks
     * only that provider for its IAs ({@code DatRegistry.Builder.onlyProvider}), so each rule's open loads no other
     * provider's native library.
     */
    public static final String PROVIDER = "dat.tck.provider";
    /** Configuration parameter: how long the kit waits for an expected event, in milliseconds (default 10000). */
    public static final String EVENT_TIMEOUT_MS = "dat.tck.event.timeout.ms";
    /**
     * Configuration parameter: where the kit's peer ({@code dat tck-peer}) listens on another node,
     * {@code HOST:CONN_QUAL}; the cross-node rules run only when it is set.
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

    /**
     * Configuration parameter: how long the kit waits for the provider to open an IA, in milliseconds (default
     * 30000). An open that does not return within it fails its rule, and every later rule of the run fails at once.
     */
    public static final String OPEN_TIMEOUT_MS = "dat.tck.open.timeout.ms";
    /** Default of {@value #OPEN_TIMEOUT_MS}. */
    public static final long OPEN_TIMEOUT_MILLIS_DEFAULT = 30_000;
    /**
     * Configuration parameter: the command that runs this kit against the same target, up to the rules to run
     * ({@code dat --provider-path P tck --ia NAME}); the campaign prints its replay line with it. Set by
     * {@link TckLauncher}; without it the replay names the configuration parameters to set instead.
     */
    public static final String REPLAY_COMMAND = "dat.tck.replay.command";

    /** Checks that the lookup and the state are present. */
    public TckContext {
        Objects.requireNonNull(parameters, "parameters");
        Objects.requireNonNull(run, "run");
    }

    /** {@return how long the kit waits for the provider's open, in milliseconds} */
    public long openTimeoutMillis() {
        return parameters.apply(OPEN_TIMEOUT_MS).map(Long::parseLong).orElse(OPEN_TIMEOUT_MILLIS_DEFAULT);
    }

    /** {@return the command line that reruns the kit against this target, if the launcher said it} */
    public Optional<String> replayCommand() {
        return parameters.apply(REPLAY_COMMAND).filter(text -> !text.isBlank());
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

    /** {@return the provider of the IA to verify, or {@code null} when any provider may offer it} */
    public String providerName() {
        return parameters.apply(PROVIDER).orElse(null);
    }

    /** {@return how long the kit waits for an event it expects} */
    public long eventTimeoutMillis() {
        return parameters.apply(EVENT_TIMEOUT_MS).map(Long::parseLong).orElse(TckFixture.EVENT_TIMEOUT_MILLIS_DEFAULT);
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
