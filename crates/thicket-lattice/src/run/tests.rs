use super::*;
use crate::report::lattice_nodes;
use crate::verify::hull_tn13;

fn cpu(strategy: Strategy) -> PriceOptions {
    PriceOptions {
        run: RunOptions {
            backend: Backend::Cpu,
            quiet: true,
            verify: true,
            ..RunOptions::default()
        },
        strategy: Some(strategy),
        ..PriceOptions::default()
    }
}

#[test]
fn hulls_example_prices_on_every_cpu_strategy_and_verifies() {
    for strategy in [Strategy::Serial, Strategy::Multicore] {
        let run = price(&hull_tn13(), &cpu(strategy)).unwrap();
        assert!((run.output.priced.price - 5.4701813761).abs() < 1e-9);
        assert_eq!(run.verified, Some(true));
        let json = run.json(
            OptionKernel {
                option: hull_tn13().checked().unwrap(),
                options: &cpu(strategy),
            }
            .stats(&run.output),
        );
        for key in [
            "price",
            "delta",
            "gamma",
            "steps",
            "precision",
            "strategy",
            "backend",
            "seconds",
        ] {
            assert!(json.get(key).is_some(), "{key}");
        }
    }
}

#[test]
fn gpu_strategies_refuse_the_cpu_and_cpu_ones_the_gpu() {
    let error = price(&hull_tn13(), &cpu(Strategy::Thesis)).unwrap_err();
    assert!(error.to_string().contains("runs on a GPU"), "{error}");
    let mut options = cpu(Strategy::Serial);
    options.run.backend = Backend::Cuda;
    assert!(price(&hull_tn13(), &options).is_err());
    let mut book = cpu(Strategy::Multicore);
    book.strategy = Some(Strategy::Hybrid);
    book.run.backend = Backend::Auto;
    assert!(price_book(&[hull_tn13()], &book).is_err());
}

#[test]
fn the_thesis_refuses_an_observed_maximum_as_bad_input_on_any_machine() {
    let seasoned = Contract {
        observed_extreme: Some(57.5),
        ..hull_tn13()
    };
    for strategy in [Strategy::Thesis, Strategy::Hybrid] {
        let mut options = cpu(strategy);
        options.run.backend = Backend::Auto;
        let error = price(&seasoned, &options).unwrap_err();
        assert_eq!(error.exit_code(), 2, "{error}");
        assert!(error.to_string().contains("57.5"), "{error}");
    }
}

#[test]
fn auto_falls_back_to_the_cpu_without_a_gpu_and_a_book_verifies() {
    let options = PriceOptions {
        run: RunOptions {
            quiet: true,
            verify: true,
            ..RunOptions::default()
        },
        ..PriceOptions::default()
    };
    let run = price(&hull_tn13(), &options).unwrap();
    assert_eq!(run.verified, Some(true));
    let book = price_book(&[hull_tn13(), hull_tn13()], &options).unwrap();
    assert_eq!(book.verified, Some(true));
    assert_eq!(book.output.nodes, 20);
}

#[test]
fn two_prices_in_one_process_agree_and_open_the_gpu_once() {
    let options = PriceOptions {
        run: RunOptions {
            quiet: true,
            ..RunOptions::default()
        },
        ..PriceOptions::default()
    };
    let contract = Contract {
        steps: 3_000,
        ..hull_tn13()
    };
    let first = price(&contract, &options).unwrap();
    let second = price(&contract, &options).unwrap();
    assert_eq!(first.output.priced, second.output.priced);
    let book = [hull_tn13(), contract];
    let books = [
        price_book(&book, &options).unwrap(),
        price_book(&book, &options).unwrap(),
    ];
    assert_eq!(books[0].output.priced, books[1].output.priced);
    if first.info.backend == Backend::Cuda.name() {
        assert_eq!(
            crate::gpu::OPENS.load(std::sync::atomic::Ordering::SeqCst),
            1
        );
    }
}

#[test]
fn multicore_runs_on_the_callers_pool() {
    let pool = thicket_core::pool(3).unwrap();
    let run = pool
        .install(|| price(&hull_tn13(), &cpu(Strategy::Multicore)))
        .unwrap();
    assert_eq!(run.info.threads, 3);
    let book = pool
        .install(|| price_book(&[hull_tn13()], &cpu(Strategy::Multicore)))
        .unwrap();
    assert_eq!(book.info.threads, 3);
}

#[test]
fn a_bad_option_of_a_book_is_named_by_its_place() {
    let mut book = vec![hull_tn13(); 8];
    book[5].market.volatility = -1.0;
    book[7].steps = 0;
    let error = price_book(&book, &cpu(Strategy::Serial)).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("option 6 of 8: volatility is -1"),
        "{error}"
    );
}

#[test]
fn strategies_parse_by_name() {
    for strategy in Strategy::ALL {
        assert_eq!(strategy.name().parse::<Strategy>().unwrap(), strategy);
    }
    assert!("warp".parse::<Strategy>().is_err());
}

/// A book of `count` lookback puts of `steps` steps.
fn puts(count: usize, steps: usize) -> Vec<Contract> {
    vec![
        Contract {
            steps,
            ..hull_tn13()
        };
        count
    ]
}

#[test]
fn a_book_stopped_before_the_call_returns_no_option_marked_stopped() {
    let flag = thicket_core::StopFlag::new();
    flag.raise();
    for strategy in [Strategy::Serial, Strategy::Multicore] {
        let mut options = cpu(strategy);
        options.vega_rho = true;
        let run = thicket_core::stoppable(&flag, || price_book(&puts(4, 50), &options)).unwrap();
        assert!(run.output.stopped);
        assert!(run.output.priced.is_empty());
        assert_eq!(run.output.nodes, 0);
        // A stopped book is not verified, and its JSON says it stopped.
        assert_eq!(run.verified, None);
        assert_eq!(run.output.stats()["stopped"], true);
    }
}

#[test]
fn a_book_stopped_from_another_thread_keeps_its_first_options_within_half_a_second() {
    const STEPS: usize = 1_000;
    // Enough options that the book takes seconds, each small enough to take milliseconds
    // (at 200 steps an optimised test build priced the whole book before the stop).
    let book = puts(20_000, STEPS);
    let whole = price_book(&book[..3], &cpu(Strategy::Serial)).unwrap();
    for strategy in [Strategy::Serial, Strategy::Multicore] {
        let flag = thicket_core::StopFlag::new();
        let raiser = flag.clone();
        let raised = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            raiser.raise();
            std::time::Instant::now()
        });
        let mut options = cpu(strategy);
        options.run.trials = 3;
        let run = thicket_core::stoppable(&flag, || price_book(&book, &options)).unwrap();
        let ended = std::time::Instant::now();
        let late = ended
            .saturating_duration_since(raised.join().unwrap())
            .as_secs_f64();
        // Generous: a debug build on a loaded CI machine; the half second is measured in
        // release by the Python package's interrupt tests.
        assert!(late < 5.0, "{strategy}: stopped {late} s after the request");
        let output = &run.output;
        assert!(
            output.stopped && output.priced.len() < book.len(),
            "{strategy}"
        );
        // One trial: a stopped one is the answer.
        assert_eq!(run.trial_seconds.len(), 1);
        assert!(output.priced.iter().all(|p| *p == whole.output.priced[0]));
        assert_eq!(
            output.nodes,
            output.priced.len() as u64 * lattice_nodes(STEPS)
        );
    }
}

#[test]
fn a_whole_book_says_nothing_of_stopping() {
    let run = price_book(&puts(2, 20), &cpu(Strategy::Serial)).unwrap();
    assert!(!run.output.stopped);
    assert!(run.output.stats().get("stopped").is_none());
}
