// SPDX-License-Identifier: Apache-2.0
package dat.osgi.it;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;
import org.osgi.framework.wiring.FrameworkWiring;

/**
 * Runs in a JVM of its own with one OSGi framework jar on the class path: starts the framework, installs and
 * starts every bundle of a directory and the consumer bundle, then drives the consumer's probes and prints what
 * they answer, one {@code key: value} line at a time, for {@link OsgiIT} to check. Exits 0 when every step ran;
 * a bundle that does not resolve is printed with the requirement the framework could not meet, and exits 1.
 *
 * <p>Arguments: the framework storage directory, the bundles directory, the consumer bundle, a provider bundle
 * to install after start and uninstall again.
 */
public final class OsgiLauncher {

    private static final long STOP_TIMEOUT_MILLIS = 30_000;

    private OsgiLauncher() {
    }

    public static void main(String[] args) throws Exception {
        Path storage = Path.of(args[0]);
        Path bundles = Path.of(args[1]);
        Path consumer = Path.of(args[2]);
        Path provider = Path.of(args[3]);

        Map<String, String> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, storage.toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class).findFirst().orElseThrow();
        Framework framework = factory.newFramework(config);
        framework.start();
        BundleContext context = framework.getBundleContext();
        System.out.println("framework: " + framework.getSymbolicName() + " " + framework.getVersion());
        int failures = 0;
        try {
            List<Bundle> installed = new ArrayList<>();
            List<Path> jars;
            try (Stream<Path> list = Files.list(bundles)) {
                jars = list.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
            }
            for (Path jar : jars) {
                Bundle bundle = context.installBundle(jar.toUri().toString());
                if (bundle.getSymbolicName() == null) {
                    // A dependency's plain jar (annotations only): nothing for a framework to run.
                    System.out.println("skipped: " + jar.getFileName() + " is not a bundle");
                    bundle.uninstall();
                } else {
                    installed.add(bundle);
                }
            }
            installed.add(context.installBundle(consumer.toUri().toString()));
            // The mediator first, so it is there to weave dat.registry when that bundle's classes load.
            installed.sort(Comparator.comparing(b -> !b.getSymbolicName().contains("spifly")));
            for (Bundle bundle : installed) {
                failures += start(bundle);
            }
            if (failures > 0) {
                return;
            }
            for (Bundle bundle : installed) {
                if (bundle.getSymbolicName().startsWith("dat.")) {
                    System.out.println("active: " + bundle.getSymbolicName() + " " + bundle.getVersion());
                }
            }

            System.out.println(probe(context, "mediator").replace("mediator ", "before: mediator "));
            System.out.println(probe(context, "whiteboard").replace("whiteboard ", "before: whiteboard "));

            Bundle late = context.installBundle(provider.toUri().toString());
            failures += start(late);
            System.out.println(probe(context, "mediator").replace("mediator ", "installed: mediator "));
            System.out.println(probe(context, "whiteboard").replace("whiteboard ", "installed: whiteboard "));

            late.uninstall();
            refresh(framework, List.of(late));
            System.out.println(probe(context, "mediator").replace("mediator ", "uninstalled: mediator "));
            System.out.println(probe(context, "whiteboard").replace("whiteboard ", "uninstalled: whiteboard "));
        } catch (Exception | Error e) {
            System.out.println("FAIL " + e);
            e.printStackTrace(System.out);
            failures++;
        } finally {
            framework.stop();
            FrameworkEvent stopped = framework.waitForStop(STOP_TIMEOUT_MILLIS);
            System.out.println("stopped: " + (stopped.getType() == FrameworkEvent.STOPPED));
            System.out.flush();
            System.exit(failures == 0 ? 0 : 1);
        }
    }

    /** Starts a bundle (fragments only resolve); @return 1, after printing why, when it did not start */
    private static int start(Bundle bundle) {
        if (bundle.getHeaders().get(Constants.FRAGMENT_HOST) != null) {
            return 0;
        }
        try {
            bundle.start();
            return 0;
        } catch (BundleException e) {
            // The frameworks name the unmet requirement (package, capability, execution environment) here.
            System.out.println("UNRESOLVED " + bundle.getSymbolicName() + ": " + e.getMessage()
                    + (e.getCause() == null ? "" : " (" + e.getCause() + ")"));
            return 1;
        }
    }

    // A service published under the raw class Callable: the class literal has no type argument to give.
    @SuppressWarnings("rawtypes")
    private static String probe(BundleContext context, String name) throws Exception {
        Collection<ServiceReference<Callable>> refs = context.getServiceReferences(Callable.class,
                "(dat.probe=" + name + ")");
        if (refs.isEmpty()) {
            return "FAIL no " + name + " probe service";
        }
        ServiceReference<Callable> ref = refs.iterator().next();
        try {
            return String.valueOf(context.getService(ref).call());
        } catch (Exception e) {
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            return "FAIL " + name + " probe threw " + trace.toString().replace(System.lineSeparator(), " | ");
        } finally {
            context.ungetService(ref);
        }
    }

    /** Refreshes the wiring of removed bundles and waits for it, so their classes are really gone. */
    private static void refresh(Framework framework, List<Bundle> bundles) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        framework.adapt(FrameworkWiring.class).refreshBundles(bundles, event -> done.countDown());
        if (!done.await(STOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
            System.out.println("FAIL refresh did not finish");
        }
    }
}
