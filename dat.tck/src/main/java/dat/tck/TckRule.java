// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import dat.api.DatReturn;
import java.util.List;

/**
 * One row of the rules index.
 *
 * @param call the DAT call
 * @param section the man page section
 * @param rule the rule in a few words
 * @param returns the return codes the test provokes
 * @param level required, optional or untested
 * @param testClass the simple name of the rule class, for example {@code SrqResizeRules}
 * @param testName the test method name
 */
public record TckRule(String call, String section, String rule, List<DatReturn> returns, RuleLevel level,
                      String testClass, String testName) {

    /** Makes the list immutable. */
    public TckRule {
        returns = List.copyOf(returns);
    }

    /** {@return the return codes as DAT spells them, comma separated, or {@code -}} */
    public String returnsText() {
        if (returns.isEmpty()) {
            return "-";
        }
        StringBuilder sb = new StringBuilder();
        for (DatReturn r : returns) {
            sb.append(sb.isEmpty() ? "" : ", ").append("DAT_").append(r.name());
        }
        return sb.toString();
    }
}
