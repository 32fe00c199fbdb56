// SPDX-License-Identifier: Apache-2.0
package dat.osgi.consumer;

import dat.registry.DatRegistry;
import dat.spi.DatProvider;
import java.util.Dictionary;
import java.util.Map;
import java.util.concurrent.Callable;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceRegistration;
import org.osgi.util.tracker.ServiceTracker;

/**
 * A consumer bundle as an application would write it, in two flavours, each published as a {@link Callable}
 * service (a {@code java.*} type, so the launcher outside the framework can call it) under the property
 * {@value #PROBE}:
 * <ul>
 *   <li>{@code mediator}: {@link DatRegistry#load()}, whose {@code ServiceLoader} the Service Loader Mediator
 *       (SPI Fly) points at the provider bundles installed at the time of the call;
 *   <li>{@code whiteboard}: the {@link DatProvider} OSGi services the mediator's registrar publishes, tracked as
 *       they come and go, handed to {@link DatRegistry.Builder#providers}: no weaving needed by the consumer.
 * </ul>
 */
public final class Activator implements BundleActivator {

    /** The service property naming a probe. */
    public static final String PROBE = "dat.probe";

    private ServiceTracker<DatProvider, DatProvider> providers;
    private ServiceRegistration<?> mediator;
    private ServiceRegistration<?> whiteboard;

    /** Created by the framework. */
    public Activator() {
    }

    @Override
    public void start(BundleContext context) {
        providers = new ServiceTracker<>(context, DatProvider.class, null);
        providers.open();
        mediator = context.registerService(Callable.class, Probes.mediator(), properties("mediator"));
        whiteboard = context.registerService(Callable.class, Probes.whiteboard(providers), properties("whiteboard"));
    }

    @Override
    public void stop(BundleContext context) {
        mediator.unregister();
        whiteboard.unregister();
        providers.close();
    }

    private static Dictionary<String, Object> properties(String probe) {
        return FrameworkUtil.asDictionary(Map.of(PROBE, probe));
    }
}
