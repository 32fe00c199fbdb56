// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import dat.tck.TckContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Hands each rule class the run's {@link TckContext}, read from JUnit configuration parameters. */
final class TckContextResolver implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext extension) {
        return parameter.getParameter().getType() == TckContext.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext extension) {
        // One state per run: the root context's store lives as long as the launcher's execution.
        TckContext.RunState run = extension.getRoot().getStore(ExtensionContext.Namespace.create(TckContext.class))
                .computeIfAbsent(TckContext.RunState.class);
        return new TckContext(extension::getConfigurationParameter, run);
    }
}
