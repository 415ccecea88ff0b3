//! The Braun et al. instances: the list heuristics give the published makespans (two
//! independent implementations agree on them), and the best known assignments verify to the
//! makespans in their file names.

use std::path::PathBuf;

use thicket_core::{Backend, RunOptions};
use thicket_schedule::{assignment, schedule, verify, Etc, Method, ScheduleOptions, F64_TOLERANCE};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data/braun")
        .join(name)
}

/// Instance, best known, Min-Min, MCT, Max-Min, MET (the shared README's table).
const TABLE: [(&str, f64, f64, f64, f64, f64); 8] = [
    (
        "u_c_hihi.0",
        7_358_942.750000,
        8_460_675.003243,
        11_422_624.494138,
        12_385_671.828125,
        47_472_299.429633,
    ),
    (
        "u_c_lohi.0",
        238_648.997009,
        275_837.356047,
        378_303.624623,
        392_566.686097,
        1_453_098.003657,
    ),
    (
        "u_c_lolo.0",
        5_135.695872,
        5_441.428197,
        6_360.054945,
        6_945.362459,
        39_582.297317,
    ),
    (
        "u_i_hilo.0",
        73_202.144286,
        80_755.679221,
        94_855.913483,
        151_923.834853,
        96_610.481021,
    ),
    (
        "u_i_lohi.0",
        101_526.984895,
        120_517.708863,
        143_816.093696,
        251_528.847642,
        185_694.594452,
    ),
    (
        "u_s_hihi.0",
        4_080_153.449219,
        5_160_342.819094,
        6_693_923.896484,
        9_208_811.495116,
        25_162_058.136311,
    ),
    (
        "u_s_hilo.0",
        95_553.272583,
        104_375.164308,
        126_587.591434,
        172_822.698182,
        605_363.772681,
    ),
    (
        "u_s_lolo.0",
        3_419.391242,
        3_806.827656,
        4_436.117532,
        6_232.241713,
        21_042.413428,
    ),
];

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b
}

#[test]
fn heuristics_give_the_published_makespans() {
    for (name, _, min_min, mct, max_min, met) in TABLE {
        let etc = Etc::read(&data(name)).unwrap();
        assert_eq!((etc.tasks(), etc.machines()), (512, 16));
        for (method, wanted) in [
            (Method::MinMin, min_min),
            (Method::Mct, mct),
            (Method::MaxMin, max_min),
            (Method::Met, met),
        ] {
            let options = ScheduleOptions {
                run: RunOptions {
                    backend: Backend::Cpu,
                    quiet: true,
                    ..RunOptions::default()
                },
                method,
                ..ScheduleOptions::default()
            };
            let assignment = schedule(&etc, &options).unwrap().output.assignment;
            let (_, makespan) = assignment::loads(&etc, &assignment);
            assert!(
                close(makespan, wanted),
                "{name} {method}: {makespan} != {wanted}"
            );
            assert!(verify(&etc, &assignment, makespan, F64_TOLERANCE).is_ok());
        }
    }
}

#[test]
fn best_known_assignments_verify_to_their_file_names() {
    let files: Vec<String> = std::fs::read_dir(data(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".sol"))
        .collect();
    assert_eq!(files.len(), 8);
    for (name, best, ..) in TABLE {
        let file = files.iter().find(|f| f.starts_with(name)).unwrap();
        let etc = Etc::read(&data(name)).unwrap();
        let assignment = assignment::read(&data(file), &etc).unwrap();
        let named: f64 = file
            .trim_end_matches(".sol")
            .rsplit('_')
            .next()
            .unwrap()
            .replace(',', ".")
            .parse()
            .unwrap();
        let verdict = verify(&etc, &assignment, best, F64_TOLERANCE).unwrap();
        // The names round to 0.1 (one is off by one in the last digit).
        assert!((verdict.makespan - named).abs() <= 0.1 + 1e-9, "{file}");
    }
}

/// Nesmachnow's larger instances (`larger/`): both headers read (`T M x` and `T M`), and the
/// column-pricing assignments verify to the makespans in their file names (the recomputed
/// values of data/braun/README.md).
#[test]
fn the_larger_instances_read_and_their_best_knowns_verify() {
    let table = [
        (
            "1024x32_A.u_c_hihi",
            "19517000,9",
            (1024, 32),
            19_517_000.91,
        ),
        ("1024x32_A.u_i_lohi", "507,1", (1024, 32), 507.13),
        ("1024x32_B.u_c_lolo", "2085,0", (1024, 32), 2_085.0),
        ("1024x32_B.u_s_hilo", "34260,9", (1024, 32), 34_260.9),
        (
            "2048x64_A.u_c_hihi",
            "17224612,6",
            (2048, 64),
            17_224_612.62,
        ),
    ];
    for (name, named, size, best) in table {
        let etc = Etc::read(&data(&format!("larger/{name}"))).unwrap();
        assert_eq!((etc.tasks(), etc.machines()), size, "{name}");
        let sol = data(&format!("larger/{name}_CPR_{named}.sol"));
        let assignment = assignment::read(&sol, &etc).unwrap();
        let verdict = verify(&etc, &assignment, best, 1e-9).unwrap();
        let named: f64 = named.replace(',', ".").parse().unwrap();
        assert!((verdict.makespan - named).abs() <= 0.05 + 1e-9, "{name}");
    }
}
