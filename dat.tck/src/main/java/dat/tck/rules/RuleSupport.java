// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.tck.RuleLevel;
import dat.tck.TckContext;
import dat.tck.TckEnvironment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;
import org.opentest4j.TestAbortedException;

/**
 * Base of every rule class: opens a {@link TckFixture} on a fresh IA before each test and closes it abruptly
 * after, and offers the assertions the rules share.
 */
@ExtendWith(TckContextResolver.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class RuleSupport {

    /** The provider under test. */
    protected final TckEnvironment env;
    /** This test's IA and helpers; open during each test. */
    protected TckFixture f;
    private TckContext context;
    private RuleLevel level = RuleLevel.REQUIRED;

    /**
     * @param env the provider under test
     */
    protected RuleSupport(TckEnvironment env) {
        this.env = env;
    }

    @BeforeEach
    final void openFixture(TckContext runContext, TestInfo test) {
        this.context = runContext;
        this.level = test.getTestMethod().map(m -> RuleLevel.of(m.getName())).orElse(RuleLevel.REQUIRED);
        env.configure(runContext);
        f = new TckFixture(IaOpener.open(env, runContext), runContext.eventTimeoutMillis(),
                attribute -> requiredFeature(false, attribute));
    }

    /**
     * Opens another IA of the provider under test, bounded as the fixture's own ({@link TckContext#OPEN_TIMEOUT_MS}).
     *
     * @return an open IA; the caller closes it
     */
    protected final DatIa openIa() {
        return IaOpener.open(env, context);
    }

    @AfterEach
    final void closeFixture() {
        if (f != null) {
            f.close();
        }
    }

    /**
     * For {@code optional_} rules: skips the test, with the reason, when the provider denies the feature.
     *
     * @param claimed whether the provider's attributes claim the feature
     * @param attribute the attribute and value that deny it, as the skip reason shows it
     */
    protected static void optionalFeature(boolean claimed, String attribute) {
        Assumptions.assumeTrue(claimed, () -> "provider attribute denies the feature: " + attribute);
    }

    /** Prefix of every skip this kit explains by the provider's attributes or limits. */
    public static final String NOT_APPLICABLE = "not applicable: ";

    /**
     * Skips the test when the provider's attributes or limits make the rule moot (a denial test on a provider that
     * claims the feature, a queue too deep to fill); the reason starts with {@link #NOT_APPLICABLE}.
     *
     * @param applies whether the rule applies to this provider
     * @param why the attribute or limit that decides it
     */
    protected static void applicableIf(boolean applies, String why) {
        Assumptions.assumeTrue(applies, () -> NOT_APPLICABLE + why);
    }

    /**
     * For rules that need a feature DAT lets a provider deny (an SRQ, a recv-info count): skipped with the reason;
     * in strict mode a {@code required_} rule fails instead (an {@code optional_} rule is still skipped).
     *
     * @param claimed whether the provider's attributes claim the feature
     * @param attribute the attribute and value that deny it
     */
    protected final void requiredFeature(boolean claimed, String attribute) {
        if (claimed) {
            return;
        }
        if (level == RuleLevel.REQUIRED && context != null && context.strict()) {
            fail("strict mode: this required rule needs a feature the provider denies: " + attribute);
        }
        Assumptions.abort("provider attribute denies the feature this rule needs: " + attribute);
    }

    /**
     * Skips (or in strict mode fails) the rule when the IA's limit {@code name} allows fewer than {@code needed} of
     * an object the rule creates itself, so the kit never asks for what the limits deny.
     *
     * @param name the limit as DAT spells it, for example {@code max_eps}
     * @param limit its value
     * @param needed how many the rule needs
     */
    protected final void needs(String name, long limit, long needed) {
        requiredFeature(limit >= needed, name + " = " + limit + " (this rule needs " + needed + ")");
    }

    /**
     * Asserts a data-path status.
     *
     * @param expected the expected status, for example {@link DatReturn#DAT_INVALID_PARAMETER}
     * @param actual what the call returned
     * @param what the call and situation, for the failure message
     */
    protected static void assertStatus(int expected, int actual, String what) {
        if (DatReturn.of(expected) != safeType(actual)) {
            assertEquals(DatReturn.toString(expected), DatReturn.toString(actual), what);
        }
    }

    /**
     * Asserts that a control-path call throws {@link DatException} of the given type.
     *
     * @param expected the expected return type
     * @param call the call
     * @param what the call and situation, for the failure message
     * @return the exception, for further checks
     */
    protected static DatException assertThrowsDat(DatReturn expected, Executable call, String what) {
        try {
            call.execute();
        } catch (TestAbortedException e) {
            // The fixture found a limit that denies what the call needed: a skip, not the call's failure.
            throw e;
        } catch (DatException e) {
            if (e.type() != expected) {
                fail(what + ": expected DAT_" + expected + " but got " + e.getMessage(), e);
            }
            return e;
        } catch (Throwable t) {
            fail(what + ": expected DatException DAT_" + expected + " but got " + t, t);
        }
        return fail(what + ": expected DAT_" + expected + " but the call succeeded");
    }

    private static DatReturn safeType(int status) {
        try {
            return DatReturn.of(status);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
