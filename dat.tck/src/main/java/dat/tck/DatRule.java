// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import dat.api.DatReturn;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the DAT rule a TCK test verifies, so the rules index ({@link RulesIndex}, {@code --list-rules}) can be
 * read off the kit itself.
 *
 * <p>The test's name says how binding the rule is: {@code required_<call>_<rule>} must pass on every provider,
 * {@code optional_<call>_<rule>} is skipped with the reason when the provider's attributes deny the feature,
 * {@code untested_<call>_<rule>} is listed but always skipped ("not verified by this TCK"). Its Javadoc quotes
 * the man page and section, and says what to check when it fails.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface DatRule {

    /** {@return the DAT call, for example {@code dat_srq_resize}} */
    String call();

    /** {@return the man page section the rule comes from: {@code RETURN VALUES}, {@code DESCRIPTION}, {@code USAGE}} */
    String section();

    /** {@return the rule in a few words} */
    String rule();

    /** {@return the return codes the test provokes; empty for a behavioural rule} */
    DatReturn[] returns() default {};
}
