use super::*;
use crate::constellation::canonical_constellations;
use crate::verify::known_counts;

/// Every child of every task one row further down, tasks at their last row kept: the
/// level-by-level expansion that the depth-first walk replaces, kept as its reference.
fn expand(n: usize, plans: &[GpuPlan], tasks: &[Task]) -> Vec<Task> {
    let mut next = Vec::new();
    for task in tasks {
        let plan = &plans[task.plan as usize];
        if task.depth == plan.last {
            next.push(*task);
            continue;
        }
        let mut free = task.free(plan, n);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            next.push(task.child(plan, bit));
        }
    }
    next
}

/// The tasks and depth of the level-by-level rule: expand while there are fewer than
/// `min_tasks` tasks and some task is short of its last row (`min_tasks = usize::MAX`
/// goes as deep as any task can).
fn levels_until(n: usize, plans: &[GpuPlan], min_tasks: usize) -> (Vec<Task>, usize) {
    let mut tasks: Vec<Task> = (0..plans.len()).map(Task::root).collect();
    let mut depth = 0;
    while tasks.len() < min_tasks && tasks.iter().any(|t| t.depth != plans[t.plan as usize].last) {
        tasks = expand(n, plans, &tasks);
        depth += 1;
    }
    (tasks, depth)
}

/// The stack levels of the reference tasks, computed on their own.
fn reference_levels(plans: &[GpuPlan], tasks: &[Task]) -> usize {
    tasks
        .iter()
        .map(|t| (plans[t.plan as usize].last - t.depth) as usize)
        .max()
        .unwrap_or(0)
        .max(1)
}

/// The walk and the packed words match the level-by-level reference at fixed depths,
/// including depths past some plans' last rows.
#[test]
fn the_walk_lists_the_level_by_level_tasks() {
    for n in 8..=14 {
        let plans = gpu_plans(n, &canonical_constellations(n));
        let mut tasks: Vec<Task> = (0..plans.len()).map(Task::root).collect();
        for depth in 0..=4 {
            assert_eq!(split(n, &plans, depth), tasks, "n={n} depth={depth}");
            let counts = TaskCounts::at(n, &plans, depth);
            assert_eq!(counts.total(), tasks.len(), "n={n} depth={depth}");
            let packed = PackedTasks::new(n, &plans, &counts);
            let words: Vec<u32> = tasks.iter().flat_map(Task::pack).collect();
            assert_eq!(packed.words, words, "n={n} depth={depth}");
            assert_eq!(packed.levels, reference_levels(&plans, &tasks));
            tasks = expand(n, &plans, &tasks);
        }
    }
}

/// The counted depth choice is the level-by-level rule's, with the same tasks but for the
/// tail of plans split a level further, and the kernel's algorithm over them gives the
/// OEIS totals.
fn check_auto_depth(n: usize) {
    let constellations = canonical_constellations(n);
    let plans = gpu_plans(n, &constellations);
    let (tasks, depth) = levels_until(n, &plans, target_tasks(n));
    let counts = TaskCounts::auto(n, &plans, target_tasks(n));
    assert_eq!(counts.depth(), depth, "n={n}");
    let deeper_from = counts.deeper_from as u32;
    let (head, tail): (Vec<Task>, Vec<Task>) =
        tasks.into_iter().partition(|t| t.plan < deeper_from);
    let tasks = [head, expand(n, &plans, &tail)].concat();
    assert_eq!(counts.total(), tasks.len(), "n={n}");
    if let Some((total, _)) = known_counts(n) {
        let sum: u64 = tasks.iter().map(|t| t.count(&plans, n)).sum();
        let border_only = crate::gpu::queens::border_only_total(n, &constellations);
        assert_eq!(u128::from(sum) + border_only, total, "n={n}");
    }
    let packed = PackedTasks::new(n, &plans, &counts);
    let words: Vec<u32> = tasks.iter().flat_map(Task::pack).collect();
    assert_eq!(packed.words, words, "n={n}");
    assert_eq!(packed.levels, reference_levels(&plans, &tasks), "n={n}");
}

#[test]
fn the_auto_depth_follows_the_level_by_level_rule() {
    for n in 1..=14 {
        check_auto_depth(n);
    }
}

#[test]
#[ignore = "slow in debug builds: run with --release --ignored"]
fn the_auto_depth_follows_the_level_by_level_rule_to_17() {
    for n in 15..=17 {
        check_auto_depth(n);
    }
}

/// With more tasks asked for than exist, the choice stops where no task can go deeper
/// (every task at its last row, or none left), as the level-by-level rule does.
#[test]
fn the_auto_depth_stops_where_no_task_goes_deeper() {
    for n in 1..=9 {
        let plans = gpu_plans(n, &canonical_constellations(n));
        let (tasks, depth) = levels_until(n, &plans, usize::MAX);
        let counts = TaskCounts::auto(n, &plans, usize::MAX);
        assert_eq!(counts.depth(), depth, "n={n}");
        assert_eq!(counts.total(), tasks.len(), "n={n}");
        assert_eq!(
            counts.deeper_from,
            plans.len(),
            "n={n}: nothing goes deeper"
        );
    }
}

/// The kernel's algorithm over the tasks of every split depth gives the OEIS totals.
#[test]
fn split_tasks_add_up_to_the_oeis_totals() {
    for n in 1..=14 {
        let constellations = canonical_constellations(n);
        let plans = gpu_plans(n, &constellations);
        let expected = known_counts(n).unwrap().0;
        let border_only = crate::gpu::queens::border_only_total(n, &constellations);
        for depth in 0..=4 {
            let tasks = split(n, &plans, depth);
            let sum: u64 = tasks.iter().map(|t| t.count(&plans, n)).sum();
            assert_eq!(
                u128::from(sum) + border_only,
                expected,
                "n={n} depth={depth}"
            );
        }
    }
}

/// The plans split deeper are the last ones, and they held at least the tail's share of
/// the tasks, but no plan more than needed.
#[test]
fn the_tail_plans_hold_the_last_share_of_the_tasks() {
    let n = 14;
    let plans = gpu_plans(n, &canonical_constellations(n));
    let counts = TaskCounts::auto(n, &plans, target_tasks(n));
    let at_depth = TaskCounts::at(n, &plans, counts.depth());
    let share = |from: usize| {
        at_depth.per_plan[from..].iter().sum::<usize>() as f64 / at_depth.total() as f64
    };
    let from = counts.deeper_from;
    assert!(from < plans.len());
    assert!(share(from) >= TAIL_SHARE);
    assert!(share(from + 1) < TAIL_SHARE);
    assert_eq!(counts.per_plan[..from], at_depth.per_plan[..from]);
    assert!(counts.total() > at_depth.total());
    // The work is counted in tasks at the chosen depth, the tail's by its share.
    let head = at_depth.per_plan[..from].iter().sum::<usize>() as u64;
    assert_eq!(counts.work(), at_depth.total() as u64);
    assert_eq!(counts.work_done(head), head);
    assert_eq!(counts.work_done(0), 0);
    let halfway = head + (counts.total() as u64 - head) / 2;
    let tail = at_depth.total() as u64 - head;
    assert!(counts.work_done(halfway).abs_diff(head + tail / 2) <= 1);
    assert_eq!(counts.work_done(u64::MAX), counts.work());
}

#[test]
fn packing_keeps_every_field() {
    let n = 12;
    let plans = gpu_plans(n, &canonical_constellations(n));
    let task = split(n, &plans, 2)[77];
    assert_eq!(
        task.pack(),
        [
            task.plan | task.depth << 24,
            task.cols,
            task.down_right,
            task.down_left
        ]
    );
    let plan = &plans[task.plan as usize];
    let record = plan.pack();
    assert_eq!(record[0], plan.last);
    assert!(record[1] == 8 || record[1] == 4 || record[1] == 2);
    assert_eq!(record[2 + 1] >> GAP_SHIFT, plan.gap_into(1));
    assert!((1..=3).contains(&plan.gap_into(1)));
}
