use super::*;
use crate::book_csv::parse_book;
use crate::run::price_book;

/// A book of `count` small options of every payoff and style, with an id column.
fn book(count: usize) -> Book {
    let mut text =
        String::from("id,payoff,style,spot,strike,maturity,volatility,rate,dividend_yield,steps\n");
    for k in 0..count {
        let (payoff, strike) = match k % 4 {
            0 => ("call", format!("{}", 40 + k % 7)),
            1 => ("put", format!("{}", 45 + k % 5)),
            2 => ("lookback-put", String::new()),
            _ => ("lookback-call", String::new()),
        };
        let style = if k % 3 == 0 { "european" } else { "american" };
        text += &format!(
            "row-{k},{payoff},{style},{},{strike},{},0.{},0.05,0.01,{}\n",
            40 + k % 11,
            0.25 + (k % 4) as f64 * 0.25,
            2 + k % 5,
            5 + k % 40
        );
    }
    parse_book("book.csv", &text).unwrap()
}

fn cpu() -> PriceOptions {
    PriceOptions {
        run: thicket_core::RunOptions {
            backend: Backend::Cpu,
            quiet: true,
            ..thicket_core::RunOptions::default()
        },
        vega_rho: true,
        ..PriceOptions::default()
    }
}

fn batching(ledger: PathBuf, shard: Shard) -> BookBatching {
    BookBatching {
        ledger,
        shard,
        mpi: false,
        batch_size: 16,
        devices: None,
    }
}

fn whole(outcome: LedgeredBook) -> Vec<Priced> {
    match outcome {
        LedgeredBook::Whole(priced) => priced,
        other => panic!("expected the whole book, got {other:?}"),
    }
}

/// Raises its stop flag once `after` batches have been recorded.
struct StopAfter<'a> {
    inner: BookPricer<'a>,
    after: usize,
    flag: StopFlag,
}

impl BatchWorker for StopAfter<'_> {
    fn backend(&self) -> &'static str {
        self.inner.backend()
    }
    fn device(&self) -> String {
        self.inner.device()
    }
    fn run(&mut self, id: u64, context: &Value) -> Result<BatchValue> {
        self.inner.run(id, context)
    }
    fn run_each(
        &mut self,
        ids: &[u64],
        context: Value,
        finish: &mut dyn FnMut(u64, BatchValue, f64) -> Result<Value>,
    ) -> Result<()> {
        let (after, flag) = (self.after, self.flag.clone());
        let mut recorded = 0;
        thicket_run::batched::one_by_one(self, ids, context, &mut |id, value, seconds| {
            let next = finish(id, value, seconds)?;
            recorded += 1;
            if recorded == after {
                flag.raise();
            }
            Ok(next)
        })
    }
}

#[test]
fn a_ledgered_book_prices_as_one_book_does() {
    let dir = tempfile::tempdir().unwrap();
    let plan = BookBatches::new(book(100), 16, Precision::F64, true).unwrap();
    assert_eq!(plan.batches(), 7);
    let priced = whole(
        price_book_ledgered(
            &plan,
            &cpu(),
            &batching(dir.path().join("b.db"), Shard::WHOLE),
            &mut vec![],
        )
        .unwrap(),
    );
    let direct = price_book(plan.book().contracts(), &cpu())
        .unwrap()
        .output
        .priced;
    assert_eq!(priced, direct);
    assert!(priced.iter().all(|p| p.vega.is_some()));
}

#[test]
fn a_stopped_run_resumes_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let plan = BookBatches::new(book(100), 16, Precision::F64, true).unwrap();
    let uninterrupted = whole(
        price_book_ledgered(
            &plan,
            &cpu(),
            &batching(dir.path().join("one.db"), Shard::WHOLE),
            &mut vec![],
        )
        .unwrap(),
    );
    let path = dir.path().join("stopped.db");
    let flag = StopFlag::new();
    let inner = BookPricer::open(&plan, &cpu(), None, Some(flag.clone()), &mut vec![]).unwrap();
    let mut stopping = StopAfter {
        inner,
        after: 3,
        flag,
    };
    let stopped = runner::run_ledgered(
        &plan,
        &mut stopping,
        &path,
        Shard::WHOLE,
        &Progress::hidden(),
    );
    assert!(matches!(stopped, Err(Error::Interrupted(_))), "{stopped:?}");
    assert_eq!(
        Ledger::open_existing(&path)
            .unwrap()
            .batches()
            .unwrap()
            .len(),
        3
    );
    let resumed = whole(
        price_book_ledgered(&plan, &cpu(), &batching(path, Shard::WHOLE), &mut vec![]).unwrap(),
    );
    assert_eq!(
        plan.book().priced_csv(&resumed),
        plan.book().priced_csv(&uninterrupted)
    );
}

#[test]
fn shards_merge_into_the_whole_and_the_ledger_alone_rebuilds_the_book() {
    let dir = tempfile::tempdir().unwrap();
    let plan = BookBatches::new(book(90), 16, Precision::F64, false).unwrap();
    let mut ledgers = Vec::new();
    for index in 0..3 {
        let path = dir.path().join(format!("s{index}.db"));
        let shard = Shard { index, count: 3 };
        let outcome =
            price_book_ledgered(&plan, &cpu(), &batching(path.clone(), shard), &mut vec![])
                .unwrap();
        assert_eq!(outcome, LedgeredBook::Shard(shard));
        ledgers.push(Ledger::open_existing(&path).unwrap());
    }
    let (rebuilt, merged) = merge_book(&ledgers).unwrap();
    assert_eq!(rebuilt.book(), plan.book());
    let direct = price_book(
        plan.book().contracts(),
        &PriceOptions {
            vega_rho: false,
            ..cpu()
        },
    )
    .unwrap()
    .output
    .priced;
    assert_eq!(merged, direct);
    // Two shards of three are not the whole book.
    assert!(merge_book(&ledgers[..2]).is_err());
    // Every batch rechecks against the serial lattice.
    for record in ledgers[1].batches().unwrap() {
        assert_eq!(rebuilt.recheck(&record).unwrap().mismatch, None);
    }
}

#[test]
fn a_ledger_of_another_book_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.db");
    let first = BookBatches::new(book(20), 16, Precision::F64, false).unwrap();
    price_book_ledgered(
        &first,
        &cpu(),
        &batching(path.clone(), Shard::WHOLE),
        &mut vec![],
    )
    .unwrap();
    let other = BookBatches::new(book(21), 16, Precision::F64, false).unwrap();
    let refused = price_book_ledgered(&other, &cpu(), &batching(path, Shard::WHOLE), &mut vec![]);
    assert_eq!(refused.err().map(|e| e.exit_code()), Some(2));
}

#[test]
fn answers_round_trip_through_a_batch_detail() {
    let p = Priced {
        price: 5.470181376130639,
        delta: -0.1,
        gamma: 1e-300,
        theta: -3.25,
        vega: None,
        rho: Some(2.0),
    };
    assert_eq!(decode_priced(&encode_priced(&p)), Some(p));
    assert_eq!(decode_priced("1,2,3"), None);
}

/// A price edited in a shard's ledger (the batch's detail, its count and check values left as
/// they were) is refused by the merge as a wrong answer naming the ledger and the batch, and
/// by `status` and `verify`.
#[test]
fn an_edited_price_is_refused_by_merge_status_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let plan = BookBatches::new(book(40), 16, Precision::F64, false).unwrap();
    let mut paths = Vec::new();
    for index in 0..2 {
        let path = dir.path().join(format!("s{index}.db"));
        let shard = Shard { index, count: 2 };
        price_book_ledgered(&plan, &cpu(), &batching(path.clone(), shard), &mut vec![]).unwrap();
        paths.push(path);
    }
    let db = rusqlite::Connection::open(&paths[1]).unwrap();
    let detail: String = db
        .query_row("SELECT detail FROM details WHERE id = 1", [], |r| r.get(0))
        .unwrap();
    let (price, rest) = detail.split_once(',').unwrap();
    let edited = format!("{},{rest}", price.parse::<f64>().unwrap() + 0.01);
    db.execute("UPDATE details SET detail = ?1 WHERE id = 1", [edited])
        .unwrap();
    drop(db);
    let open = |p: &PathBuf| Ledger::open_existing(p).unwrap();
    let refused = merge_book(&[open(&paths[0]), open(&paths[1])])
        .err()
        .unwrap();
    assert_eq!(refused.exit_code(), 3, "{refused}");
    assert!(
        refused
            .to_string()
            .contains("s1.db: batch 1: its row does not match its digest"),
        "{refused}"
    );
    let status = thicket_run::inspect::status(&open(&paths[1])).unwrap();
    assert_eq!(status.corrupt, 1);
    assert!(status.fault.unwrap().contains("s1.db: batch 1"));
    let verified = thicket_run::inspect::verify(&plan, &open(&paths[1]), 1, 1);
    assert_eq!(verified.err().map(|e| e.exit_code()), Some(3));
}
