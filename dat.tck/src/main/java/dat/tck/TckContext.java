package dat.tck;

/**
 * Settings of one TCK run, read from JUnit configuration parameters (set by {@link TckLauncher}, or by a
 * vendor in {@code junit-platform.properties}).
 *
 * @param strict {@value #STRICT}: a required rule that cannot run because the provider denies a feature it
 *     needs fails instead of being skipped
 * @param iaName {@value #IA}: the IA {@link RegistryVerification} opens through the registry, or {@code null}
 */
public record TckContext(boolean strict, String iaName) {

    /** Configuration parameter for strict mode ({@code true}/{@code false}). */
    public static final String STRICT = "dat.tck.strict";
    /** Configuration parameter naming the IA to verify. */
    public static final String IA = "dat.tck.ia";
}
