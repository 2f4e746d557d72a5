"""First end-to-end checks: a rendered scene is found and identified."""
from vision.recognise import Recogniser
from vision.synthetic import Placement, StressOptions, render_scene, synthetic_profile


def test_separate_cards_on_plain_table_are_identified():
    p = synthetic_profile("french-52")
    pl = [Placement("hearts/queen", (300, 300), 20), Placement("spades/7", (700, 380), -70),
          Placement(None, (1000, 320), 45)]
    scene = render_scene(p, pl, table="plain", seed=1, stress=StressOptions(glare=0.2))
    dets = Recogniser(p, threshold=0.5).recognise(scene.image)
    got = sorted((d.card or "", d.face_up) for d in dets)
    assert got == sorted([("hearts/queen", True), ("spades/7", True), ("", False)])
